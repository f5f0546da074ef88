#include "core/values.h"

#include <algorithm>
#include <cmath>

namespace collbench {
std::uint64_t mix_bits(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

namespace {

std::uint64_t element_hash(const ValueSpec& spec, int rank, std::uint64_t index) {
  return mix_bits(index + 0x9e3779b97f4a7c15ULL * (static_cast<std::uint64_t>(rank) + 1) + (spec.seed << 40));
}

// At most this many ranks contribute a factor 2 to one product element, so |product| <= 2^6 fits
// every dtype (int8 included) and stays exact in bfloat16.
constexpr int kMaxDoublingsPerProduct = 6;

int doubling_stride(int ranks) { return std::max(1, (ranks + kMaxDoublingsPerProduct - 1) / kMaxDoublingsPerProduct); }

// Brings an exact integer result into the dtype's range the way two's-complement arithmetic does.
double wrap_to_dtype(DType type, std::int64_t value) {
  switch (type) {
    case DType::kInt8: return static_cast<std::int8_t>(static_cast<std::uint8_t>(value & 0xff));
    case DType::kUint8: return static_cast<std::uint8_t>(value & 0xff);
    case DType::kInt32: return static_cast<std::int32_t>(static_cast<std::uint32_t>(value & 0xffffffffLL));
    case DType::kUint32: return static_cast<std::uint32_t>(value & 0xffffffffLL);
    case DType::kInt64: return static_cast<double>(value);
    case DType::kUint64: return static_cast<double>(static_cast<std::uint64_t>(value));
    default: return static_cast<double>(value);
  }
}

double unit_roundoff(DType type) { return std::ldexp(1.0, -dtype_info(type).significand_bits); }

}  // namespace

double input_value(const ValueSpec& spec, int rank, std::uint64_t index) {
  const std::uint64_t hash = element_hash(spec, rank, index);
  const bool is_signed = dtype_info(spec.dtype).is_signed;
  if (spec.op == ReduceOp::kProd) {
    const bool doubles = (static_cast<std::uint64_t>(rank) + index) % doubling_stride(spec.ranks) == 0;
    const bool negates = is_signed && (hash & 7) == 0;
    return (doubles ? 2.0 : 1.0) * (negates ? -1.0 : 1.0);
  }
  const int small = static_cast<int>(((hash >> 32) * 9) >> 32);  // uniform in [0, 9)
  return is_signed ? small - 4 : small;
}

double reduced_value(const ValueSpec& spec, std::uint64_t index) {
  const bool floating = dtype_info(spec.dtype).is_floating;
  // Inputs are small integers, so the exact result fits an int64 for any realistic rank count.
  std::int64_t exact = static_cast<std::int64_t>(input_value(spec, 0, index));
  for (int rank = 1; rank < spec.ranks; ++rank) {
    const auto value = static_cast<std::int64_t>(input_value(spec, rank, index));
    switch (spec.op) {
      case ReduceOp::kSum:
      case ReduceOp::kAvg: exact += value; break;
      case ReduceOp::kProd: exact *= value; break;
      case ReduceOp::kMin: exact = std::min(exact, value); break;
      case ReduceOp::kMax: exact = std::max(exact, value); break;
    }
  }
  if (floating) {
    const double result = static_cast<double>(exact);
    return spec.op == ReduceOp::kAvg ? result / spec.ranks : result;
  }
  const double wrapped = wrap_to_dtype(spec.dtype, exact);
  if (spec.op != ReduceOp::kAvg) return wrapped;
  // Integer avg is the wrapped sum divided in the dtype, truncating toward zero like C and NCCL.
  return std::trunc(wrapped / spec.ranks);
}

double reduction_tolerance(const ValueSpec& spec, std::uint64_t index) {
  if (!dtype_info(spec.dtype).is_floating) return 0.0;
  if (spec.op != ReduceOp::kSum && spec.op != ReduceOp::kAvg) return 0.0;  // exact by construction
  double sum_of_magnitudes = 0.0;
  for (int rank = 0; rank < spec.ranks; ++rank) sum_of_magnitudes += std::fabs(input_value(spec, rank, index));
  const double u = unit_roundoff(spec.dtype);
  double bound = (spec.ranks - 1) * u * sum_of_magnitudes;
  if (spec.op == ReduceOp::kAvg) bound = bound / spec.ranks + 2 * u * sum_of_magnitudes / spec.ranks;
  return bound;
}

void fill_inputs(const ValueSpec& spec, int rank, void* buffer, std::size_t count, std::uint64_t first_index) {
  for (std::size_t i = 0; i < count; ++i) store_element(spec.dtype, buffer, i, input_value(spec, rank, first_index + i));
}

}  // namespace collbench
