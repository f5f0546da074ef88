// GEMM inputs and their check: random non-zero values as a function of (seed, matrix, index),
// rounded to the element type, and the relative error ||C - C_ref|| / ||C_ref|| of a sample of
// output entries against a float64 reference computed from the same rounded inputs.
#pragma once

#include <cstdint>
#include <vector>

#include "engines/kinds.h"

namespace collbench::compute {

enum class Matrix { kA = 0, kB = 1 };

// Uniform in [-1, -1/16] U [1/16, 1], never zero, then rounded to what `type` stores (tf32 is
// stored as float32: the tensor cores round it, which the error bound covers).
double gemm_input(GemmType type, std::uint64_t seed, Matrix matrix, std::uint64_t index);

// Round to the nearest value representable in FP8 E4M3 (saturating at +-448).
double round_to_e4m3(double value);

// Both matrices are column-major: A is m x k (index i + p*m), B is k x n (index p + q*k), C is m x n.
struct GemmEntry {
  std::int64_t row = 0, column = 0;
};

// Up to `count` distinct output entries, always including (0, 0) so a corrupted first element is
// seen, spread over the matrix by the seed.
std::vector<GemmEntry> sample_entries(const GemmShape& shape, std::uint64_t seed, int count);

// The float64 reference value of one entry.
double reference_entry(GemmType type, std::uint64_t seed, const GemmShape& shape, const GemmEntry& entry);

// ||actual - reference|| / ||reference|| over the sample; +inf when anything is not finite.
double relative_error(const std::vector<double>& actual, const std::vector<double>& reference);

// The largest accepted relative error: the type's rounding of inputs and output plus a sqrt(k)
// growth of accumulation rounding, with a safety factor; far below what one wrong entry causes.
double relative_error_bound(GemmType type, std::int64_t k);

// Bytes of one element as the GEMM stores A and B (C/D may be wider).
int element_bytes(GemmType type);

}  // namespace collbench::compute
