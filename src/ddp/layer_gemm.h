// The compute of one layer: a real float32 GEMM (OpenBLAS) with the layer's FLOPs for the batch.
// A layer's true shapes (convolutions, attention) are not reproduced: what the step needs is the
// same amount of dense work at about the same efficiency, in the same order, so that
// communication competes with it the way it would. The shape is near-cubic, capped in size so
// the scratch matrices stay small; a larger layer repeats the GEMM.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace collbench::ddp {

struct GemmPlan {
  int side = 0;      // m = n
  int depth = 0;     // k
  int repeats = 0;   // 0: no GEMM (no FLOPs to do)
  double flops() const { return 2.0 * side * side * depth * repeats; }
};

constexpr int kMaxGemmSide = 256;
constexpr int kMaxGemmDepth = 4096;

// The most FLOPs one layer may ask for in one step: the GEMM repeated INT_MAX times (about 1e18, a
// year at 30 GFLOP/s). A plan past it cannot be represented, and running one small GEMM instead
// reported a 4 ms step for a model that asked for 1e30 FLOPs.
constexpr double kMaxLayerFlops = 2.0 * kMaxGemmSide * kMaxGemmSide * kMaxGemmDepth * 2147483647.0;

// The plan whose FLOPs come closest to `flops` (pure). Throws UsageError past kMaxLayerFlops
// (infinity included), naming `what`.
GemmPlan plan_gemm(double flops, const std::string& what = "a layer");

// Scratch matrices sized for the largest plan, reused by every layer.
class LayerGemm {
 public:
  LayerGemm();
  void run(const GemmPlan& plan);

 private:
  std::vector<float> a_, b_, c_;
};

}  // namespace collbench::ddp
