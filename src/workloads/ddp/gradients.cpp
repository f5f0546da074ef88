#include "workloads/ddp/gradients.h"

namespace collbench::ddp {

void produce_gradients(float* gradients, std::uint64_t count, int rank, std::uint64_t first_index, std::int64_t micro_step,
                       bool accumulate) {
  // The phase advances by one per element: one modulo per call instead of one per element.
  auto phase = static_cast<int>(
      (first_index + static_cast<std::uint64_t>(micro_step) * 3 + static_cast<std::uint64_t>(rank) * 5) % 17);
  for (std::uint64_t i = 0; i < count; ++i) {
    const float value = (static_cast<float>(phase) - 8.0f) / 16.0f;
    gradients[i] = accumulate ? gradients[i] + value : value;
    if (++phase == 17) phase = 0;
  }
}

double expected_average(int world_size, std::uint64_t index, std::int64_t first_micro_step, int micro_steps) {
  double sum = 0;
  for (int rank = 0; rank < world_size; ++rank) {
    for (int m = 0; m < micro_steps; ++m) sum += gradient_value(rank, index, first_micro_step + m);
  }
  return sum / world_size;
}

double gradient_error_bound(DType dtype, int world_size, int micro_steps) {
  const double largest_sum = 0.5 * world_size * micro_steps;  // each rank's value is at most 1/2 per micro-step
  if (dtype == DType::kFloat32) {
    // DDP's order: each rank multiplies by float(1/n) while copying into the bucket (two
    // roundings: the reciprocal and the product), then the n terms are summed in float32 in
    // whatever order the backend uses ((n-1) roundings). To first order at most
    // (n + 1) u x (sum of |terms|) <= (n + 1) u x largest_sum / n; (n + 2) leaves room for
    // the second-order terms.
    const double unit_roundoff = 1.0 / (1 << 24);
    return (world_size + 2) * unit_roundoff * largest_sum / world_size;
  }
  // fp16/bf16 hooks here: recursive summation of the ranks' values in the travelling dtype, with
  // each rank's conversion to it: at most u x the largest sum; then one float32 rounding of the
  // division by the world size.
  const double unit_roundoff = dtype == DType::kFloat16 ? 1.0 / 2048 : 1.0 / 256;
  return unit_roundoff * largest_sum + largest_sum / world_size / (1 << 23);
}

}  // namespace collbench::ddp
