#include "workloads/ddp/layer_gemm.h"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "core/error.h"
#include "core/printable.h"

namespace collbench::ddp {
namespace {

using Clock = std::chrono::steady_clock;

void check_flops(const Gemm& gemm, const std::string& layer, const char* which) {
  if (gemm.flops() <= kMaxLayerFlops) return;
  const std::string text =
      formatted(" GEMM (%llux%llux%llu x %llu) asks for %.3g FLOPs in one step, more than the %.3g a step can run",
                static_cast<unsigned long long>(gemm.m), static_cast<unsigned long long>(gemm.n), static_cast<unsigned long long>(gemm.k),
                static_cast<unsigned long long>(gemm.count), gemm.flops(), kMaxLayerFlops);
  throw UsageError("layer '" + printable(layer) + "': its " + which + text + ": lower --batch or --compute-scale, or fix the model's shapes");
}

}  // namespace

Gemm gemm_at(const GemmShape& shape, double samples) {
  if (shape.empty()) return {};
  std::uint64_t factors[4] = {shape.m, shape.n, shape.k, shape.count};
  auto& scaled = factors[static_cast<int>(shape.batch_axis)];
  const double value = std::round(static_cast<double>(scaled) * samples);
  // Past 2^62 the GEMM is refused by its FLOPs anyway; the clamp only keeps the cast defined.
  scaled = static_cast<std::uint64_t>(std::clamp(value, 1.0, 4.6e18));
  return {factors[0], factors[1], factors[2], factors[3]};
}

namespace {
template <typename Of>
double sum_over(const std::vector<LayerWork>& layers, Of of) {
  return std::accumulate(layers.begin(), layers.end(), 0.0, [&of](double total, const LayerWork& layer) { return total + of(layer); });
}
}  // namespace

double ComputePlan::forward_flops() const { return sum_over(layers, [](const LayerWork& l) { return l.forward.flops(); }); }
double ComputePlan::backward_flops() const {
  return sum_over(layers, [](const LayerWork& l) { return l.input_grad.flops() + l.weight_grad.flops(); });
}
double ComputePlan::forward_bytes() const { return sum_over(layers, [](const LayerWork& l) { return l.forward_bytes; }); }
double ComputePlan::backward_bytes() const { return sum_over(layers, [](const LayerWork& l) { return l.backward_bytes; }); }

ComputePlan plan_compute(const Model& model, int batch, double compute_scale) {
  ComputePlan plan;
  const double samples = batch * compute_scale;
  for (std::size_t i = 0; i < model.layers.size(); ++i) {
    const Layer& layer = model.layers[i];
    LayerWork work;
    work.forward = gemm_at(layer.forward, samples);
    if (i > 0) work.input_grad = gemm_at(layer.input_grad, samples);
    work.weight_grad = gemm_at(layer.weight_grad, samples);
    check_flops(work.forward, layer.name, "forward");
    check_flops(work.input_grad, layer.name, "input-gradient");
    check_flops(work.weight_grad, layer.name, "weight-gradient");
    work.forward_bytes = layer.forward_bytes.at(batch) * compute_scale;
    work.backward_bytes = layer.backward_bytes.at(batch) * compute_scale;
    plan.layers.push_back(work);
  }
  return plan;
}

std::vector<GemmTile> tile_gemm(const Gemm& gemm) {
  std::vector<GemmTile> tiles;
  if (gemm.empty()) return tiles;
  std::uint64_t tile[3] = {gemm.m, gemm.n, gemm.k};  // m, n, k
  const std::uint64_t full[3] = {gemm.m, gemm.n, gemm.k};
  auto fits = [&] {
    return tile[0] * tile[2] <= kMaxOperandElements && tile[2] * tile[1] <= kMaxOperandElements &&
           tile[0] * tile[1] <= kMaxOperandElements;
  };
  // Halving the largest side keeps the tiles as close to the GEMM's proportions as the cap allows.
  while (!fits()) {
    const auto largest = static_cast<std::size_t>(std::max_element(tile, tile + 3) - tile);
    tile[largest] = (tile[largest] + 1) / 2;
  }
  // Per axis: whole tiles and one remainder tile.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> sides[3];  // (length, how many)
  for (int axis = 0; axis < 3; ++axis) {
    sides[axis].push_back({tile[axis], full[axis] / tile[axis]});
    if (full[axis] % tile[axis] != 0) sides[axis].push_back({full[axis] % tile[axis], 1});
  }
  for (const auto& [m, m_count] : sides[0]) {
    for (const auto& [n, n_count] : sides[1]) {
      for (const auto& [k, k_count] : sides[2]) tiles.push_back({m, n, k, m_count * n_count * k_count * gemm.count});
    }
  }
  return tiles;
}

LayerGemm::LayerGemm() : a_(kMaxOperandElements), b_(kMaxOperandElements), c_(kMaxOperandElements) {
  // Small values that cannot overflow however often they are multiplied: no denormals, no NaNs.
  for (std::size_t i = 0; i < a_.size(); ++i) a_[i] = static_cast<float>(i % 7) * 0.01f;
  for (std::size_t i = 0; i < b_.size(); ++i) b_[i] = static_cast<float>(i % 5) * 0.01f;
}

void LayerGemm::run(const Gemm& gemm) {
  for (const GemmTile& tile : tile_gemm(gemm)) {
    const auto m = static_cast<int>(tile.m), n = static_cast<int>(tile.n), k = static_cast<int>(tile.k);
    for (std::uint64_t r = 0; r < tile.repeats; ++r) {
      cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a_.data(), m, b_.data(), k, 0.0f, c_.data(), m);
    }
  }
}

void spin_for(double microseconds) {
  if (!(microseconds > 0)) return;
  const auto end = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::micro>(microseconds));
  while (Clock::now() < end) {
  }
}

double measure_memory_gbps() {
  constexpr std::size_t kElements = 8u << 20;  // 32 MiB of float32 per array: past the last-level cache
  std::vector<float> a(kElements, 1.0f), b(kElements, 0.0f);
  double best_seconds = 0;
  for (int pass = 0; pass < 5; ++pass) {
    const auto start = Clock::now();
    const float q = pass % 2 == 0 ? 0.5f : 2.0f;
    for (std::size_t i = 0; i < kElements; ++i) b[i] = q * a[i];
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    a.swap(b);
    if (pass > 0 && (best_seconds == 0 || seconds < best_seconds)) best_seconds = seconds;  // pass 0 warms up
  }
  if (a[kElements / 2] == 12345.0f) std::fputs("", stderr);  // keeps the passes from being optimised away
  return 2.0 * kElements * sizeof(float) / best_seconds / 1e9;
}

}  // namespace collbench::ddp
