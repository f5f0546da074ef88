#include "ddp/layer_gemm.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/error.h"

namespace collbench::ddp {

GemmPlan plan_gemm(double flops, const std::string& what) {
  GemmPlan plan;
  if (flops > kMaxLayerFlops) {
    char text[128];
    std::snprintf(text, sizeof text, " asks for %.3g FLOPs in one step, more than the %.3g a step can run", flops, kMaxLayerFlops);
    throw UsageError(what + text + ": lower --batch or --compute-scale, or fix the model's FLOP counts");
  }
  if (!(flops >= 2.0)) return plan;
  plan.side = std::clamp(static_cast<int>(std::cbrt(flops / 2.0)), 1, kMaxGemmSide);
  const double depth_total = flops / (2.0 * plan.side * plan.side);
  plan.repeats = std::max(1, static_cast<int>(std::ceil(depth_total / kMaxGemmDepth)));
  plan.depth = std::clamp(static_cast<int>(std::lround(depth_total / plan.repeats)), 1, kMaxGemmDepth);
  return plan;
}

LayerGemm::LayerGemm()
    : a_(static_cast<std::size_t>(kMaxGemmSide) * kMaxGemmDepth),
      b_(static_cast<std::size_t>(kMaxGemmDepth) * kMaxGemmSide),
      c_(static_cast<std::size_t>(kMaxGemmSide) * kMaxGemmSide) {
  // Small values that cannot overflow however often they are multiplied: no denormals, no NaNs.
  for (std::size_t i = 0; i < a_.size(); ++i) a_[i] = static_cast<float>(i % 7) * 0.01f;
  for (std::size_t i = 0; i < b_.size(); ++i) b_[i] = static_cast<float>(i % 5) * 0.01f;
}

void LayerGemm::run(const GemmPlan& plan) {
  for (int r = 0; r < plan.repeats; ++r) {
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, plan.side, plan.side, plan.depth, 1.0f, a_.data(), plan.side,
                b_.data(), plan.depth, 0.0f, c_.data(), plan.side);
  }
}

}  // namespace collbench::ddp
