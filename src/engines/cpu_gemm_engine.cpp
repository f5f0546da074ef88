// GEMM on the CPU through OpenBLAS cblas_sgemm/cblas_dgemm, column-major, no transposes.
#include <cblas.h>

#include <vector>

#include "engines/engines.h"
#include "engines/host_info.h"
#include "engines/openblas_info.h"
#include "core/error.h"

namespace collbench::compute {
namespace {

template <typename T>
struct MatrixSet {
  std::vector<T> a, b, c;
};

class CpuGemmEngine final : public GemmEngine {
 public:
  explicit CpuGemmEngine(int threads) : host_(probe_host()) {
    threads_ = threads > 0 ? threads : host_.affinity_cores;
    blas_ = configure_openblas(threads_, host_.vector_level);
  }

  std::string device() const override { return "cpu"; }
  std::string library() const override { return "OpenBLAS (" + blas_.corename + ", " + std::to_string(blas_.threads) + " threads)"; }

  std::string unsupported_reason(GemmType type) const override {
    if (type == GemmType::kFloat32 || type == GemmType::kFloat64) return "";
    return to_string(type) + " GEMM is GPU-only here (OpenBLAS runs float32 and float64)";
  }

  void prepare(const GemmShape& shape, GemmType type, std::uint64_t seed, int sets) override {
    shape_ = shape;
    type_ = type;
    single_.clear();
    double_.clear();
    if (type == GemmType::kFloat32) fill(single_, shape, type, seed, sets);
    else fill(double_, shape, type, seed, sets);
  }

  std::string algorithm() const override {
    return std::string(type_ == GemmType::kFloat64 ? "cblas_dgemm" : "cblas_sgemm") + " (" + blas_.corename + ")";
  }

  TimingSchedule schedule() const override { return TimingSchedule::kBarrierEachIteration; }
  void issue(int set) override { multiply(set); }
  void wait() override {}

  void corrupt_output(int set) override {
    if (type_ == GemmType::kFloat32) single_.at(set).c[0] = -single_.at(set).c[0] + 1000.0f;
    else double_.at(set).c[0] = -double_.at(set).c[0] + 1000.0;
  }

  std::vector<double> read_outputs(int set, const std::vector<GemmEntry>& entries) override {
    std::vector<double> out;
    for (const auto& entry : entries) {
      const auto index = static_cast<std::size_t>(entry.row + entry.column * shape_.m);
      out.push_back(type_ == GemmType::kFloat32 ? single_.at(set).c[index] : double_.at(set).c[index]);
    }
    return out;
  }

  std::uint64_t cache_bytes() const override { return host_.last_level_cache_bytes; }

  std::optional<double> peak_tflops(GemmType type, bool* is_estimate) const override {
    *is_estimate = true;
    return cpu_peak_tflops_estimate(host_, threads_, type == GemmType::kFloat64 ? 64 : 32);
  }

 private:
  template <typename T>
  static void fill(std::vector<MatrixSet<T>>& sets_out, const GemmShape& shape, GemmType type, std::uint64_t seed, int sets) {
    const auto a_count = static_cast<std::size_t>(shape.m * shape.k);
    const auto b_count = static_cast<std::size_t>(shape.k * shape.n);
    const auto c_count = static_cast<std::size_t>(shape.m * shape.n);
    sets_out.resize(static_cast<std::size_t>(sets));
    for (auto& set : sets_out) {
      set.a.resize(a_count);
      set.b.resize(b_count);
      set.c.assign(c_count, T(0));
      // Every set holds the same values: any set can be checked against the one reference.
      for (std::size_t i = 0; i < a_count; ++i) set.a[i] = static_cast<T>(gemm_input(type, seed, Matrix::kA, i));
      for (std::size_t i = 0; i < b_count; ++i) set.b[i] = static_cast<T>(gemm_input(type, seed, Matrix::kB, i));
    }
  }

  void multiply(int set) {
    const auto m = static_cast<blasint>(shape_.m), n = static_cast<blasint>(shape_.n), k = static_cast<blasint>(shape_.k);
    if (type_ == GemmType::kFloat32) {
      auto& s = single_.at(static_cast<std::size_t>(set));
      cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, s.a.data(), m, s.b.data(), k, 0.0f, s.c.data(), m);
    } else {
      auto& s = double_.at(static_cast<std::size_t>(set));
      cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, s.a.data(), m, s.b.data(), k, 0.0, s.c.data(), m);
    }
  }

  HostInfo host_;
  int threads_ = 1;
  OpenBlasInfo blas_;
  GemmShape shape_;
  GemmType type_ = GemmType::kFloat32;
  std::vector<MatrixSet<float>> single_;
  std::vector<MatrixSet<double>> double_;
};

}  // namespace

std::unique_ptr<GemmEngine> make_cpu_gemm_engine(int threads) { return std::make_unique<CpuGemmEngine>(threads); }

}  // namespace collbench::compute
