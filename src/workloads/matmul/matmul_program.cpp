// matmul_perf: GEMM throughput of every rank's own device, checked against a float64 reference.
#include <algorithm>
#include <cmath>
#include <memory>

#include "engines/engines.h"
#include "workloads/compute/compute_workload.h"
#include "workloads/compute/platform_notes.h"
#include "workloads/matmul/matmul_program.h"
#include "workloads/compute/rank_gather.h"
#include "workloads/matmul/matmul_options.h"
#include "workloads/matmul/report/gemm_rows.h"

namespace collbench::compute {
namespace {

constexpr int kCheckedEntries = 256;
constexpr int kMaxRotatedSets = 16;

// Enough input sets that one pass over them exceeds twice the cache, so no GEMM finds its inputs
// left in cache by the previous one.
int rotation_sets(const MatmulOptions& options, std::uint64_t set_bytes, std::uint64_t cache_bytes) {
  if (options.rotate_sets > 0) return options.rotate_sets;
  if (set_bytes == 0 || cache_bytes == 0) return 1;
  const auto wanted = (2 * cache_bytes + set_bytes - 1) / set_bytes;
  return static_cast<int>(std::clamp<std::uint64_t>(wanted, 1, kMaxRotatedSets));
}

// A, B and C of one input set; C is float32 or wider.
std::uint64_t set_bytes(const GemmShape& shape, GemmType type) {
  const auto bytes_per_element = static_cast<std::uint64_t>(element_bytes(type));
  return static_cast<std::uint64_t>(shape.m * shape.k + shape.k * shape.n) * bytes_per_element +
         static_cast<std::uint64_t>(shape.m * shape.n) * 4;
}

std::string shape_text(const GemmShape& shape) {
  return std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" + std::to_string(shape.k);
}

struct GemmCase {
  GemmType type;
  GemmShape shape;
};

// Host memory of the largest input set (times the rotated sets) where the engine runs on the host.
MemoryNeed matmul_memory_need(const MatmulOptions& options) {
  std::uint64_t largest = 0;
  if (!runs_on_host(options)) return {};
  for (GemmType type : options.gemm_types) {
    for (const GemmShape& shape : options.gemm_shapes()) {
      largest = std::max(largest, set_bytes(shape, type) * static_cast<std::uint64_t>(std::max(options.rotate_sets, 1)));
    }
  }
  return {largest, "the sweep needs", "lower -e, --sizes or --shapes, or use fewer ranks per host"};
}

// One run of matmul_perf: dtypes x shapes over this rank's GEMM engine.
class MatmulWorkload final : public ThroughputWorkload<MatmulOptions, GemmEngine, GemmCase> {
 public:
  MatmulWorkload(RunContext& run, const MatmulOptions& options)
      : ThroughputWorkload(run, options, report::kGemmRows, &make_gpu_gemm_engine, &make_cpu_gemm_engine) {
    for (GemmType type : options_.gemm_types) {
      for (const GemmShape& shape : options_.gemm_shapes()) cases_.push_back({type, shape});
    }
    report_without_rows_ = start_report(run, "matmul", recorded_options(options_, declare_matmul_options), engine_->device(),
                                        local_platform(host_, options_.threads, on_cpu_ ? threads_ : 0, run.world.size(),
                                                       engine_->device(), engine_->library(), on_cpu_));
  }

 private:
  std::string header(const nlohmann::json&) const override {
    return formatted("# matmul_perf: %d rank(s); rank 0: %s, %s\n", world_.size(), engine_->device().c_str(),
                     engine_->library().c_str()) +
           "# time = max over ranks per iteration; TFLOP/s = 2mnk / mean time per rank; spread = fastest/slowest rank\n" +
           (on_cpu_ ? "# %peak against an estimated peak: cores x clock x FLOPs/cycle\n" : "");
  }
  CasePlan prepare(std::size_t index) override;
  // The largest GEMM by its FLOPs (2mnk) brings a GPU to its working clocks before the first row,
  // as the collectives' warm-up does; each shape's own -w still finds its kernel.
  std::optional<double> warmup_size(std::size_t index) const override {
    const GemmShape& shape = cases_[index].shape;
    return 2.0 * static_cast<double>(shape.m) * static_cast<double>(shape.n) * static_cast<double>(shape.k);
  }

  std::string wrong_text(std::int64_t wrong_total) const override {
    return "wrong: " + std::to_string(wrong_total) + " (relative error above the dtype's bound)";
  }

  std::vector<GemmEntry> entries_;   // the current case's checked entries and their float64 values
  std::vector<double> reference_;
  double worst_error_ = 0;           // the largest relative error over its checks; not finite when one was
};

CasePlan MatmulWorkload::prepare(std::size_t index) {
  const GemmCase& one_case = cases_[index];
  const std::string reason = engine_->unsupported_reason(one_case.type);
  if (!reason.empty()) return CasePlan::skip_what(to_string(one_case.type), reason);
  const int sets = rotation_sets(options_, set_bytes(one_case.shape, one_case.type), engine_->cache_bytes());
  // A shape the library has no algorithm for is a skipped row, not the end of the run.
  try {
    engine_->prepare(one_case.shape, one_case.type, options_.seed, sets);
  } catch (const ShapeUnsupported& error) {
    const std::string what = to_string(one_case.type) + " " + shape_text(one_case.shape);
    return CasePlan::skip_what(what, error.what());
  }
  const double bound = relative_error_bound(one_case.type, one_case.shape.k);
  PreparedCase prepared;
  prepared.step = "matmul " + shape_text(one_case.shape) + " " + to_string(one_case.type);
  prepared.operation = std::make_unique<FunctionOperation>(
      engine_->schedule(), [this, sets](int i) { engine_->issue(i % sets); }, [this] { engine_->wait(); });
  worst_error_ = 0;
  if (options_.check_iterations > 0) {
    entries_ = sample_entries(one_case.shape, options_.seed, kCheckedEntries);
    reference_.clear();
    for (const auto& entry : entries_) reference_.push_back(reference_entry(one_case.type, options_.seed, one_case.shape, entry));
    // The loop issues set 0 once per check; its sampled entries are compared with the reference.
    RowCheck check;
    check.prepare = [](int) {};
    check.count_wrong = [this, bound](int) -> std::int64_t {
      if (options_.inject_corrupt_output && world_.rank() == world_.size() - 1) engine_->corrupt_output(0);
      const double error = relative_error(engine_->read_outputs(0, entries_), reference_);
      if (std::isfinite(worst_error_)) worst_error_ = std::isfinite(error) ? std::max(worst_error_, error) : error;
      return std::isfinite(error) && error <= bound ? 0 : 1;
    };
    prepared.check = std::move(check);
  }
  prepared.row = [this, one_case, sets, bound](LoopResult& timed, report::Measurement measured) {
    const double flops = 2.0 * static_cast<double>(one_case.shape.m) * static_cast<double>(one_case.shape.n) *
                         static_cast<double>(one_case.shape.k);
    report::ThroughputRank figures;
    figures.time_us = timed.mine;
    figures.rate = flops / (timed.mine.mean * 1e-6) / 1e12;
    bool peak_is_estimate = false;
    const auto peak = engine_->peak_tflops(one_case.type, &peak_is_estimate);
    if (peak) figures.percent_of_peak = 100.0 * figures.rate / *peak;
    if (options_.check_iterations > 0) {
      figures.relative_error = worst_error_;
      figures.wrong = std::isfinite(worst_error_) && worst_error_ <= bound ? 0 : 1;
    }
    const std::vector<report::ThroughputRank> per_rank = gather_rank_figures(world_, figures);
    std::optional<double> worst_error;  // the largest over ranks, when checked
    if (options_.check_iterations > 0) {
      double worst = 0;
      for (const auto& rank : per_rank) {
        const double error = rank.relative_error.value_or(0);
        worst = std::isfinite(error) ? std::max(worst, error) : error;
      }
      worst_error = worst;
    }
    nlohmann::json fields = {{"m", one_case.shape.m},
                             {"n", one_case.shape.n},
                             {"k", one_case.shape.k},
                             {"dtype", to_string(one_case.type)},
                             {"algorithm", engine_->algorithm()},
                             {"rotate_sets", sets},
                             {"peak_is_estimate", peak_is_estimate},
                             {"relative_error", worst_error ? report::finite_or_null(*worst_error) : nlohmann::json(nullptr)},
                             {"error_bound", bound}};
    return finish_row(std::move(fields), per_rank, engine_->device(), on_cpu_ ? threads_ : 0, flops, 1e12, peak,
                      std::move(measured));
  };
  return CasePlan::run(std::move(prepared));
}

}  // namespace

int run_matmul_perf(int argc, char** argv) {
  return run_compute_program<MatmulWorkload>(
      "matmul_perf", "GEMM C = A x B on every rank's own device; every rank's figures and their spread are reported.",
      &parse_matmul_options, &declare_matmul_options, &matmul_memory_need, argc, argv);
}

}  // namespace collbench::compute
