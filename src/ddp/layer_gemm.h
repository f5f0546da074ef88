// The compute of one layer: a real float32 GEMM (OpenBLAS) with the layer's FLOPs for the batch.
// A layer's true shapes (convolutions, attention) are not reproduced: what the step needs is the
// same amount of dense work at about the same efficiency, in the same order, so that
// communication competes with it the way it would. The shape is near-cubic, capped in size so
// the scratch matrices stay small; a larger layer repeats the GEMM.
#pragma once

#include <cstdint>
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

// The plan whose FLOPs come closest to `flops` (pure).
GemmPlan plan_gemm(double flops);

// Scratch matrices sized for the largest plan, reused by every layer.
class LayerGemm {
 public:
  LayerGemm();
  void run(const GemmPlan& plan);

 private:
  std::vector<float> a_, b_, c_;
};

}  // namespace collbench::ddp
