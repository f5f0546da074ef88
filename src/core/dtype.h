// Data types and reduction operations, with the names users type and reports record.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace collbench {

enum class DType {
  kInt8, kUint8, kInt32, kUint32, kInt64, kUint64, kFloat16, kBfloat16, kFloat32, kFloat64,
  kFloat8E4M3, kFloat8E5M2,  // OCP 8-bit floats (NCCL on sm_90 and newer)
};

enum class ReduceOp { kSum, kProd, kMin, kMax, kAvg };

struct DTypeInfo {
  DType type;
  std::string_view name;  // canonical name, as in reports
  std::size_t size_bytes;
  bool is_floating;
  bool is_signed;
  int significand_bits;  // including the implicit bit; 0 for integers
};

const DTypeInfo& dtype_info(DType type);
std::string_view to_string(DType type);
std::string_view to_string(ReduceOp op);

// Accepts canonical names and nccl-tests' aliases (half, float, double, int, bf16, ...).
std::optional<DType> parse_dtype(std::string_view text);
std::optional<ReduceOp> parse_reduce_op(std::string_view text);

const std::vector<DType>& all_dtypes();
const std::vector<ReduceOp>& all_reduce_ops();

// IEEE binary16 and bfloat16 held as raw bits; conversions round to nearest even.
std::uint16_t float_to_half_bits(float value);
float half_bits_to_float(std::uint16_t bits);
std::uint16_t float_to_bf16_bits(float value);
float bf16_bits_to_float(std::uint16_t bits);

// OCP 8-bit floats held as raw bits; conversions round to nearest even. e4m3 has no infinities
// and saturates at +-448 (CUDA's satfinite); e5m2 is IEEE-like, with infinities.
std::uint8_t double_to_fp8_bits(double value, DType fp8_type);
double fp8_bits_to_double(std::uint8_t bits, DType fp8_type);
bool is_fp8(DType type);

// Calls `visit` with a value of the C++ type of one element of `type` and returns what it returns:
// for the integers, float32 and float64 only. The 16- and 8-bit floats have no C++ type here (they
// are held as bits), so callers handle them first.
template <typename Visit>
decltype(auto) with_arithmetic_type(DType type, Visit&& visit) {
  switch (type) {
    case DType::kInt8: return visit(std::int8_t{});
    case DType::kUint8: return visit(std::uint8_t{});
    case DType::kInt32: return visit(std::int32_t{});
    case DType::kUint32: return visit(std::uint32_t{});
    case DType::kInt64: return visit(std::int64_t{});
    case DType::kUint64: return visit(std::uint64_t{});
    case DType::kFloat32: return visit(float{});
    case DType::kFloat64: return visit(double{});
    default: throw std::logic_error("unknown dtype");
  }
}

// Element access through double. Exact for every value collbench generates (small integers).
double load_element(DType type, const void* buffer, std::size_t index);
void store_element(DType type, void* buffer, std::size_t index, double value);

}  // namespace collbench
