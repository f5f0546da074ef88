// Element-wise reduction kernels over host memory, for what a CPU library cannot do natively:
// MPI has no 16-bit floating types (collbench gives it user-defined ops built on these), and avg
// is a sum followed by a division. Shared by the MPI backend and the micro-benchmarks.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/dtype.h"

namespace collbench {

enum class SixteenBitFormat { kHalf, kBfloat16 };

template <SixteenBitFormat Format>
inline float decode_sixteen_bit(std::uint16_t bits) {
  return Format == SixteenBitFormat::kHalf ? half_bits_to_float(bits) : bf16_bits_to_float(bits);
}

template <SixteenBitFormat Format>
inline std::uint16_t encode_sixteen_bit(float value) {
  return Format == SixteenBitFormat::kHalf ? float_to_half_bits(value) : float_to_bf16_bits(value);
}

// inout[i] = inout[i] (op) in[i]. Each step widens to float, combines and rounds back, as a 16-bit
// accumulator would. `Op` is sum, prod, min or max (avg folds with sum).
template <SixteenBitFormat Format, ReduceOp Op>
void fold_sixteen_bit(const std::uint16_t* in, std::uint16_t* inout, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    const float a = decode_sixteen_bit<Format>(in[i]);
    const float b = decode_sixteen_bit<Format>(inout[i]);
    float result = 0;
    if constexpr (Op == ReduceOp::kProd) result = a * b;
    else if constexpr (Op == ReduceOp::kMin) result = a < b ? a : b;
    else if constexpr (Op == ReduceOp::kMax) result = a > b ? a : b;
    else result = a + b;
    inout[i] = encode_sixteen_bit<Format>(result);
  }
}

// Divides every element by `divisor` in the dtype's own arithmetic (integers truncate toward zero,
// like C and NCCL): the second half of avg.
void divide_elements(DType dtype, void* data, std::size_t count, int divisor);

// avg is a sum followed by a division by the world size, done on the ranks that hold results.
inline void finish_average(void* result, std::size_t count, DType dtype, ReduceOp op, int ranks) {
  if (op == ReduceOp::kAvg) divide_elements(dtype, result, count, ranks);
}

}  // namespace collbench
