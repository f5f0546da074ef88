#include "core/dtype.h"

#include <array>
#include <cmath>
#include <cstring>

#include "core/printable.h"

namespace collbench {
namespace {

constexpr std::array<DTypeInfo, 12> kDTypes = {{
    {DType::kInt8, "int8", 1, false, true, 0},
    {DType::kUint8, "uint8", 1, false, false, 0},
    {DType::kInt32, "int32", 4, false, true, 0},
    {DType::kUint32, "uint32", 4, false, false, 0},
    {DType::kInt64, "int64", 8, false, true, 0},
    {DType::kUint64, "uint64", 8, false, false, 0},
    {DType::kFloat16, "float16", 2, true, true, 11},
    {DType::kBfloat16, "bfloat16", 2, true, true, 8},
    {DType::kFloat32, "float32", 4, true, true, 24},
    {DType::kFloat64, "float64", 8, true, true, 53},
    {DType::kFloat8E4M3, "float8_e4m3", 1, true, true, 4},
    {DType::kFloat8E5M2, "float8_e5m2", 1, true, true, 3},
}};

struct Alias {
  std::string_view name;
  DType type;
};
// nccl-tests spellings, so scripts written for it keep working.
constexpr std::array<Alias, 15> kDTypeAliases = {{
    {"f8e4m3", DType::kFloat8E4M3},
    {"fp8_e4m3", DType::kFloat8E4M3},
    {"f8e5m2", DType::kFloat8E5M2},
    {"fp8_e5m2", DType::kFloat8E5M2},
    {"char", DType::kInt8},
    {"int", DType::kInt32},
    {"half", DType::kFloat16},
    {"fp16", DType::kFloat16},
    {"bf16", DType::kBfloat16},
    {"float", DType::kFloat32},
    {"fp32", DType::kFloat32},
    {"double", DType::kFloat64},
    {"fp64", DType::kFloat64},
    {"uint", DType::kUint32},
    {"int8_t", DType::kInt8},
}};

constexpr std::array<std::string_view, 5> kOpNames = {"sum", "prod", "min", "max", "avg"};

template <typename T>
double load_as(const void* buffer, std::size_t index) {
  T value;
  std::memcpy(&value, static_cast<const char*>(buffer) + index * sizeof(T), sizeof(T));
  return static_cast<double>(value);
}

template <typename T>
void store_as(void* buffer, std::size_t index, double value) {
  T converted = static_cast<T>(value);
  std::memcpy(static_cast<char*>(buffer) + index * sizeof(T), &converted, sizeof(T));
}

}  // namespace

const DTypeInfo& dtype_info(DType type) { return kDTypes[static_cast<std::size_t>(type)]; }
std::string_view to_string(DType type) { return dtype_info(type).name; }
std::string_view to_string(ReduceOp op) { return kOpNames[static_cast<std::size_t>(op)]; }

std::optional<DType> parse_dtype(std::string_view text) {
  const std::string name = lowercase(std::string(text));
  for (const auto& info : kDTypes) {
    if (info.name == name) return info.type;
  }
  for (const auto& alias : kDTypeAliases) {
    if (alias.name == name) return alias.type;
  }
  return std::nullopt;
}

std::optional<ReduceOp> parse_reduce_op(std::string_view text) {
  const std::string name = lowercase(std::string(text));
  for (std::size_t i = 0; i < kOpNames.size(); ++i) {
    if (kOpNames[i] == name) return static_cast<ReduceOp>(i);
  }
  return std::nullopt;
}

const std::vector<DType>& all_dtypes() {
  static const std::vector<DType> types = [] {
    std::vector<DType> out;
    for (const auto& info : kDTypes) out.push_back(info.type);
    return out;
  }();
  return types;
}

const std::vector<ReduceOp>& all_reduce_ops() {
  static const std::vector<ReduceOp> ops = {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMin, ReduceOp::kMax,
                                            ReduceOp::kAvg};
  return ops;
}

std::uint16_t float_to_half_bits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, 4);
  const std::uint32_t sign = (bits >> 16) & 0x8000u;
  const std::uint32_t abs = bits & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or NaN
    return static_cast<std::uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  }
  if (abs >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // rounds to inf
  if (abs < 0x38800000u) {  // subnormal half or zero
    if (abs < 0x33000000u) return static_cast<std::uint16_t>(sign);
    const std::uint32_t exponent = abs >> 23;
    const std::uint32_t mantissa = (abs & 0x7fffffu) | 0x800000u;
    const std::uint32_t shift = 126u - exponent;  // 14..24
    std::uint32_t half = mantissa >> (shift);
    const std::uint32_t remainder = mantissa & ((1u << shift) - 1u);
    const std::uint32_t halfway = 1u << (shift - 1u);
    if (remainder > halfway || (remainder == halfway && (half & 1u))) ++half;
    return static_cast<std::uint16_t>(sign | half);
  }
  std::uint32_t half = ((abs - 0x38000000u) >> 13);
  const std::uint32_t remainder = abs & 0x1fffu;
  if (remainder > 0x1000u || (remainder == 0x1000u && (half & 1u))) ++half;
  return static_cast<std::uint16_t>(sign | half);
}

float half_bits_to_float(std::uint16_t half) {
  const std::uint32_t sign = static_cast<std::uint32_t>(half & 0x8000u) << 16;
  const std::uint32_t exponent = (half >> 10) & 0x1fu;
  std::uint32_t mantissa = half & 0x3ffu;
  std::uint32_t bits;
  if (exponent == 0x1fu) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112u) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {  // subnormal: normalise
    std::uint32_t shifted_exponent = 113;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      --shifted_exponent;
    }
    bits = sign | (shifted_exponent << 23) | ((mantissa & 0x3ffu) << 13);
  }
  float out;
  std::memcpy(&out, &bits, 4);
  return out;
}

std::uint16_t float_to_bf16_bits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, 4);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x40u);  // quiet NaN
  const std::uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>((bits + rounding) >> 16);
}

float bf16_bits_to_float(std::uint16_t bits) {
  const std::uint32_t wide = static_cast<std::uint32_t>(bits) << 16;
  float out;
  std::memcpy(&out, &wide, 4);
  return out;
}

namespace {

struct Fp8Format {
  int exponent_bits, mantissa_bits, bias;
  bool has_infinity;
};

Fp8Format fp8_format(DType type) {
  return type == DType::kFloat8E4M3 ? Fp8Format{4, 3, 7, false} : Fp8Format{5, 2, 15, true};
}

}  // namespace

bool is_fp8(DType type) { return type == DType::kFloat8E4M3 || type == DType::kFloat8E5M2; }

std::uint8_t double_to_fp8_bits(double value, DType fp8_type) {
  const Fp8Format format = fp8_format(fp8_type);
  const int m = format.mantissa_bits;
  const std::uint8_t sign = std::signbit(value) ? 0x80 : 0x00;
  const std::uint8_t exponent_all_ones = static_cast<std::uint8_t>(((1 << format.exponent_bits) - 1) << m);
  if (std::isnan(value)) return static_cast<std::uint8_t>(sign | exponent_all_ones | ((1 << m) - 1));
  // The largest finite code: e4m3 0x7e (448); e5m2 0x7b (57344).
  const std::uint8_t largest = format.has_infinity ? static_cast<std::uint8_t>(exponent_all_ones - 1)
                                                   : static_cast<std::uint8_t>(exponent_all_ones | ((1 << m) - 2));
  const double magnitude = std::fabs(value);
  if (magnitude == 0) return sign;
  if (std::isinf(magnitude)) return static_cast<std::uint8_t>(sign | (format.has_infinity ? exponent_all_ones : largest));
  int exponent = 0;
  std::frexp(magnitude, &exponent);
  int unbiased = exponent - 1;  // magnitude = 1.f x 2^unbiased
  const int smallest_normal = 1 - format.bias;
  int code = 0;
  if (unbiased < smallest_normal) {  // subnormal: units of 2^(smallest_normal - m)
    code = static_cast<int>(std::nearbyint(std::ldexp(magnitude, m - smallest_normal)));  // may round up into the first normal
  } else {
    int units = static_cast<int>(std::nearbyint(std::ldexp(magnitude, m - unbiased)));  // in [2^m, 2^(m+1)]
    if (units == (1 << (m + 1))) {
      units >>= 1;
      ++unbiased;
    }
    code = ((unbiased + format.bias) << m) | (units - (1 << m));
  }
  if (code > largest) {
    return static_cast<std::uint8_t>(sign | (format.has_infinity ? exponent_all_ones : largest));
  }
  return static_cast<std::uint8_t>(sign | code);
}

double fp8_bits_to_double(std::uint8_t bits, DType fp8_type) {
  const Fp8Format format = fp8_format(fp8_type);
  const int m = format.mantissa_bits;
  const double sign = (bits & 0x80) ? -1.0 : 1.0;
  const int exponent = (bits >> m) & ((1 << format.exponent_bits) - 1);
  const int mantissa = bits & ((1 << m) - 1);
  const int all_ones = (1 << format.exponent_bits) - 1;
  if (format.has_infinity && exponent == all_ones) return mantissa == 0 ? sign * HUGE_VAL : std::nan("");
  if (!format.has_infinity && exponent == all_ones && mantissa == (1 << m) - 1) return std::nan("");
  if (exponent == 0) return sign * std::ldexp(mantissa, 1 - format.bias - m);
  return sign * std::ldexp((1 << m) + mantissa, exponent - format.bias - m);
}

double load_element(DType type, const void* buffer, std::size_t index) {
  switch (type) {
    // The 16-bit floats load and store as their bits (exact through the double).
    case DType::kFloat16: return half_bits_to_float(static_cast<std::uint16_t>(load_as<std::uint16_t>(buffer, index)));
    case DType::kBfloat16: return bf16_bits_to_float(static_cast<std::uint16_t>(load_as<std::uint16_t>(buffer, index)));
    case DType::kFloat8E4M3:
    case DType::kFloat8E5M2: return fp8_bits_to_double(static_cast<const std::uint8_t*>(buffer)[index], type);
    default: return with_arithmetic_type(type, [&](auto element) { return load_as<decltype(element)>(buffer, index); });
  }
}

void store_element(DType type, void* buffer, std::size_t index, double value) {
  switch (type) {
    case DType::kFloat16: return store_as<std::uint16_t>(buffer, index, float_to_half_bits(static_cast<float>(value)));
    case DType::kBfloat16: return store_as<std::uint16_t>(buffer, index, float_to_bf16_bits(static_cast<float>(value)));
    case DType::kFloat8E4M3:
    case DType::kFloat8E5M2: static_cast<std::uint8_t*>(buffer)[index] = double_to_fp8_bits(value, type); return;
    default: return with_arithmetic_type(type, [&](auto element) { store_as<decltype(element)>(buffer, index, value); });
  }
}

}  // namespace collbench
