// The compute of a step at the model's real shapes: per layer the forward GEMM, then in backward
// the input-gradient and weight-gradient GEMMs, each a real float32 GEMM (OpenBLAS) of the
// layer's (m, n, k) with the batch in its per-sample factor, and the layer's elementwise work as
// memory-bound time (bytes / host bandwidth). The first layer's input gradient is not computed:
// nothing before it needs one (autograd skips it; the input data does not require grad).
// GEMMs whose operands would not fit the scratch matrices run as tiles of the same
// proportions, with exactly the layer's FLOPs.
#pragma once

#include <cstdint>
#include <vector>

#include "workloads/ddp/model.h"

namespace collbench::ddp {

// One GEMM at a given batch: C (m x n) = A (m x k) B (k x n), `count` times. count 0: none.
struct Gemm {
  std::uint64_t m = 0, n = 0, k = 0, count = 0;
  bool empty() const { return count == 0; }
  double flops() const { return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) * static_cast<double>(count); }
};

// `shape` with its per-sample factor times `samples` (rounded, at least 1).
Gemm gemm_at(const GemmShape& shape, double samples);

struct LayerWork {
  Gemm forward, input_grad, weight_grad;
  double forward_bytes = 0, backward_bytes = 0;  // elementwise bytes touched
};

struct ComputePlan {
  std::vector<LayerWork> layers;  // per model layer
  double forward_flops() const;
  double backward_flops() const;
  double forward_bytes() const;
  double backward_bytes() const;
};

// The most FLOPs one GEMM may ask for in one step (about a year at 30 GFLOP/s): a plan past it is
// refused rather than run as something else.
constexpr double kMaxLayerFlops = 1e18;

// The plan for `batch` samples per micro-step, GEMM factors and elementwise bytes multiplied by
// `compute_scale` (pure). Layer 0 gets no input-gradient GEMM. Throws UsageError for a GEMM past
// kMaxLayerFlops, naming the layer.
ComputePlan plan_compute(const Model& model, int batch, double compute_scale);

// A GEMM as tiles whose operands each fit kMaxOperandElements: `repeats` GEMMs of m x n x k.
struct GemmTile {
  std::uint64_t m = 0, n = 0, k = 0, repeats = 0;
};
constexpr std::uint64_t kMaxOperandElements = 1ULL << 22;  // 16 MiB of float32 per matrix
std::vector<GemmTile> tile_gemm(const Gemm& gemm);          // the tiles' FLOPs sum to gemm.flops()

// Scratch matrices sized for the largest tile, reused by every GEMM.
class LayerGemm {
 public:
  LayerGemm();
  void run(const Gemm& gemm);

 private:
  std::vector<float> a_, b_, c_;
};

// Keeps the calling thread busy for `microseconds` (elementwise time, profiled layer times): the
// core is held as the real work would hold it, so communication competes for it the same way.
void spin_for(double microseconds);

// The host's memory bandwidth as this rank sees it now, GB/s (1e9 B/s) of bytes read plus written:
// the best of a few passes of b = q a over two 32 MiB arrays (STREAM's scale).
double measure_memory_gbps();

}  // namespace collbench::ddp
