// Closed-form gradients: every element a function of (rank, parameter index, micro-step), so the
// averaged gradient after a step has an exact expected value and every rank can check its own.
// Values are multiples of 1/16 in [-1/2, 1/2]: exact in float16 and bfloat16, and their sums over
// a few ranks and micro-steps stay exact too, so reduced-precision communication is checked
// within a bound that only the final division (and very long accumulations) can approach.
#pragma once

#include <cstdint>

#include "core/dtype.h"

namespace collbench::ddp {

// The gradient rank `rank` produces for parameter `index` in micro-step `micro_step`.
inline float gradient_value(int rank, std::uint64_t index, std::int64_t micro_step) {
  const auto phase = (index + static_cast<std::uint64_t>(micro_step) * 3 + static_cast<std::uint64_t>(rank) * 5) % 17;
  return (static_cast<float>(phase) - 8.0f) / 16.0f;
}

// Writes (first micro-step) or adds (the others, as autograd accumulates) `count` gradients of
// parameters first_index.. into `gradients`.
void produce_gradients(float* gradients, std::uint64_t count, int rank, std::uint64_t first_index, std::int64_t micro_step,
                       bool accumulate);

// The average over `world_size` ranks of the gradients accumulated over micro-steps
// first_micro_step .. first_micro_step + micro_steps - 1, in double.
double expected_average(int world_size, std::uint64_t index, std::int64_t first_micro_step, int micro_steps);

// The largest absolute error allowed for an averaged gradient that travelled in `dtype`:
// float32 divided while copied into the bucket, then summed (DDP's default); float16/bfloat16
// summed in that dtype, then divided in float32.
double gradient_error_bound(DType dtype, int world_size, int micro_steps);

}  // namespace collbench::ddp
