#include "engines/gemm_check.h"

#include <cmath>
#include <limits>
#include <set>
#include <utility>

#include "core/dtype.h"
#include "core/values.h"

namespace collbench::compute {
namespace {

// Unit roundoff of what the GEMM accumulates and stores, with the input rounding of tf32 included.
double output_roundoff(GemmType type) {
  switch (type) {
    case GemmType::kFloat64: return std::ldexp(1.0, -53);
    case GemmType::kFloat32: return std::ldexp(1.0, -24);
    case GemmType::kTf32: return std::ldexp(1.0, -11);     // inputs rounded to 10 stored mantissa bits
    case GemmType::kFloat16: return std::ldexp(1.0, -11);  // output stored in float16
    case GemmType::kBfloat16: return std::ldexp(1.0, -8);  // output stored in bfloat16
    case GemmType::kFp8: return std::ldexp(1.0, -8);       // output stored in bfloat16
  }
  return 1.0;
}

double accumulation_roundoff(GemmType type) {
  return type == GemmType::kFloat64 ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24);  // low precision accumulates in float32
}

}  // namespace

double round_to_e4m3(double value) {
  if (!std::isfinite(value)) return value;
  return fp8_bits_to_double(double_to_fp8_bits(value, DType::kFloat8E4M3), DType::kFloat8E4M3);
}

double gemm_input(GemmType type, std::uint64_t seed, Matrix matrix, std::uint64_t index) {
  const std::uint64_t hash = mix_bits(index * 2 + static_cast<std::uint64_t>(matrix) + (seed << 44) + 0x9e3779b97f4a7c15ULL);
  const double unit = static_cast<double>(hash >> 11) * std::ldexp(1.0, -53);  // [0, 1)
  const double magnitude = 1.0 / 16 + unit * (15.0 / 16);
  const double value = (hash & 1) ? -magnitude : magnitude;
  switch (type) {
    case GemmType::kFloat64: return value;
    case GemmType::kFloat32:
    case GemmType::kTf32: return static_cast<float>(value);
    case GemmType::kFloat16: return half_bits_to_float(float_to_half_bits(static_cast<float>(value)));
    case GemmType::kBfloat16: return bf16_bits_to_float(float_to_bf16_bits(static_cast<float>(value)));
    case GemmType::kFp8: return round_to_e4m3(value);
  }
  return value;
}

std::vector<GemmEntry> sample_entries(const GemmShape& shape, std::uint64_t seed, int count) {
  const auto total = static_cast<std::uint64_t>(shape.m) * static_cast<std::uint64_t>(shape.n);
  std::vector<GemmEntry> entries{{0, 0}};
  std::set<std::pair<std::int64_t, std::int64_t>> seen{{0, 0}};
  const auto wanted = static_cast<std::uint64_t>(count) < total ? static_cast<std::uint64_t>(count) : total;
  for (std::uint64_t attempt = 0; entries.size() < wanted && attempt < wanted * 8; ++attempt) {
    const std::uint64_t flat = mix_bits(seed * 7919 + attempt + 1) % total;
    const GemmEntry entry{static_cast<std::int64_t>(flat % static_cast<std::uint64_t>(shape.m)),
                          static_cast<std::int64_t>(flat / static_cast<std::uint64_t>(shape.m))};
    if (seen.insert({entry.row, entry.column}).second) entries.push_back(entry);
  }
  return entries;
}

double reference_entry(GemmType type, std::uint64_t seed, const GemmShape& shape, const GemmEntry& entry) {
  double sum = 0;
  for (std::int64_t p = 0; p < shape.k; ++p) {
    const double a = gemm_input(type, seed, Matrix::kA, static_cast<std::uint64_t>(entry.row + p * shape.m));
    const double b = gemm_input(type, seed, Matrix::kB, static_cast<std::uint64_t>(p + entry.column * shape.k));
    sum += a * b;
  }
  return sum;
}

double relative_error(const std::vector<double>& actual, const std::vector<double>& reference) {
  if (actual.size() != reference.size() || actual.empty()) return std::numeric_limits<double>::infinity();
  double difference = 0, norm = 0;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    if (!std::isfinite(actual[i])) return std::numeric_limits<double>::infinity();
    difference += (actual[i] - reference[i]) * (actual[i] - reference[i]);
    norm += reference[i] * reference[i];
  }
  if (norm == 0) return difference == 0 ? 0 : std::numeric_limits<double>::infinity();
  return std::sqrt(difference / norm);
}

double relative_error_bound(GemmType type, std::int64_t k) {
  constexpr double kSafety = 8;
  return kSafety * (output_roundoff(type) + std::sqrt(static_cast<double>(k)) * accumulation_roundoff(type));
}

int element_bytes(GemmType type) {
  switch (type) {
    case GemmType::kFloat64: return 8;
    case GemmType::kFloat32:
    case GemmType::kTf32: return 4;
    case GemmType::kFloat16:
    case GemmType::kBfloat16: return 2;
    case GemmType::kFp8: return 1;
  }
  return 4;
}

}  // namespace collbench::compute
