// matmul_perf: GEMM throughput of every rank's own device, checked against a float64 reference.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "compute/compute_benchmark.h"
#include "compute/engines.h"
#include "harness/host_info.h"
#include "compute/platform_notes.h"
#include "compute/programs.h"
#include "compute/rank_gather.h"
#include "core/error.h"
#include "harness/measurement_loop.h"
#include "harness/watchdog.h"
#include "report/report_json.h"

namespace collbench::compute {
namespace {

constexpr int kCheckedEntries = 256;
constexpr int kMaxRotatedSets = 16;

// Enough input sets that one pass over them exceeds twice the cache, so no GEMM finds its inputs
// left in cache by the previous one.
int rotation_sets(const ComputeOptions& options, std::uint64_t set_bytes, std::uint64_t cache_bytes) {
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

// The GEMM workload: shapes x dtypes over a GEMM engine, each timed by the harness's loop.
class MatmulBenchmark final : public ThroughputBenchmark<report::MatmulRow> {
 public:
  using ThroughputBenchmark::ThroughputBenchmark;
  MemoryNeed memory_need(int) const override;
  int measure(RunContext& run) override;
};

MemoryNeed MatmulBenchmark::memory_need(int) const {
  std::uint64_t largest = 0;
  if (!runs_on_host()) return {};
  for (GemmType type : options_.gemm_types) {
    for (const GemmShape& shape : options_.gemm_shapes()) {
      largest = std::max(largest, set_bytes(shape, type) * static_cast<std::uint64_t>(std::max(options_.rotate_sets, 1)));
    }
  }
  return {largest, "the sweep needs", "lower -e, --sizes or --shapes, or use fewer ranks per host"};
}

int MatmulBenchmark::measure(RunContext& run) {
  World& world = run.world;
  const ComputeOptions& options = options_;
  const bool leader = world.rank() == 0;
  const HostInfo host = probe_host();
  const int threads = options.threads > 0 ? options.threads : host.affinity_cores;
  std::unique_ptr<GemmEngine> engine =
      choose_engine(options, world.local_rank(), threads, &make_gpu_gemm_engine, &make_cpu_gemm_engine);
  const bool on_cpu = engine->device() == "cpu";
  start(run, engine->device(), local_platform(host, options.threads, on_cpu ? threads : 0, world.size(), engine->device(),
                                              engine->library(), on_cpu));
  if (leader) {
    std::printf("# matmul_perf: %d rank(s); rank 0: %s, %s\n", world.size(), engine->device().c_str(), engine->library().c_str());
    std::printf("# time = max over ranks per iteration; TFLOP/s = 2mnk / mean time per rank; spread = fastest/slowest rank\n");
    std::printf("#%7s %7s %7s %9s %12s %12s %12s %10s %8s %10s %9s %6s\n", "m", "n", "k", "dtype", "mean_us", "min_us",
                "max_us", "TFLOP/s", "%peak", "rel_err", "spread", "#wrong");
  }
  const int last_rank = world.size() - 1;
  for (int cycle = 1; cycle <= options.cycles; ++cycle) {
    for (GemmType type : options.gemm_types) {
      const std::string reason = engine->unsupported_reason(type);
      if (!reason.empty()) {
        if (leader && cycle == 1) {
          report_.skipped.push_back({to_string(type), reason});
          std::printf("# skipped %s: %s\n", to_string(type).c_str(), reason.c_str());
          save(run);
        }
        continue;
      }
      for (const GemmShape& shape : options.gemm_shapes()) {
        const int sets = rotation_sets(options, set_bytes(shape, type), engine->cache_bytes());
        // A shape the library has no algorithm for is a skipped row on every rank, not the end of the run.
        std::string no_algorithm;
        try {
          engine->prepare(shape, type, options.seed, sets);
        } catch (const ShapeUnsupported& error) {
          no_algorithm = error.what();
        }
        if (world.sum(no_algorithm.empty() ? 0 : 1) > 0) {
          if (leader) {
            const std::string what = to_string(type) + " " + std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" +
                                     std::to_string(shape.k);
            const std::string reason = no_algorithm.empty() ? "another rank's library has no algorithm for it" : no_algorithm;
            report_.skipped.push_back({what, reason});
            std::printf("# skipped %s: %s\n", what.c_str(), reason.c_str());
            save(run);
          }
          continue;
        }
        FunctionOperation gemm(engine->schedule(), [&](int i) { engine->issue(i % sets); }, [&] { engine->wait(); });
        const std::string step = "matmul " + std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" +
                                 std::to_string(shape.k) + " " + to_string(type);
        LoopResult timed = time_iterations(world, loop_settings(options), gemm, run.watchdog, step);
        const TimeStats& mine = timed.mine;
        const double flops = 2.0 * static_cast<double>(shape.m) * static_cast<double>(shape.n) * static_cast<double>(shape.k);
        report::ThroughputRank figures;
        figures.time_us = mine;
        figures.rate = flops / (mine.mean * 1e-6) / 1e12;
        bool peak_is_estimate = false;
        const auto peak = engine->peak_tflops(type, &peak_is_estimate);
        if (peak) figures.percent_of_peak = 100.0 * figures.rate / *peak;
        const double bound = relative_error_bound(type, shape.k);
        if (options.check_iterations > 0) {
          const auto entries = sample_entries(shape, options.seed, kCheckedEntries);
          std::vector<double> reference;
          for (const auto& entry : entries) reference.push_back(reference_entry(type, options.seed, shape, entry));
          double worst = 0;
          for (int check = 0; check < options.check_iterations; ++check) {
            engine->issue(0);
            engine->wait();
            if (options.inject_corrupt_output && world.rank() == last_rank) engine->corrupt_output(0);
            const double error = relative_error(engine->read_outputs(0, entries), reference);
            worst = std::isfinite(error) ? std::max(worst, error) : error;
            if (run.watchdog) run.watchdog->progress();
            if (!std::isfinite(worst)) break;
          }
          figures.relative_error = worst;
          figures.wrong = std::isfinite(worst) && worst <= bound ? 0 : 1;
        }
        report::MatmulRow row;
        row.per_rank = gather_rank_figures(world, figures);
        row.time_us = timed.combined;
        if (!leader) continue;
        row.m = shape.m;
        row.n = shape.n;
        row.k = shape.k;
        row.dtype = to_string(type);
        row.algorithm = engine->algorithm();
        row.rotate_sets = sets;
        row.peak_is_estimate = peak_is_estimate;
        row.error_bound = bound;
        if (options.check_iterations > 0) {
          double worst = 0;
          for (const auto& rank : row.per_rank) {
            const double error = rank.relative_error.value_or(0);
            worst = std::isfinite(error) ? std::max(worst, error) : error;
          }
          row.relative_error = worst;
        }
        add_row(run, row, engine->device(), on_cpu ? threads : 0, flops, 1e12, peak, cycle, timed);
        char percent[16] = "n/a", error[16] = "n/a", wrong[16] = "N/A";
        if (row.percent_of_peak) std::snprintf(percent, sizeof(percent), "%.1f%s", *row.percent_of_peak, peak_is_estimate ? "~" : "");
        if (row.relative_error) std::snprintf(error, sizeof(error), "%.2e", *row.relative_error);
        if (row.wrong) std::snprintf(wrong, sizeof(wrong), "%lld", static_cast<long long>(*row.wrong));
        std::printf(" %7lld %7lld %7lld %9s %12.1f %12.1f %12.1f %10.4f %8s %10s %8.3fx %6s\n", static_cast<long long>(row.m),
                    static_cast<long long>(row.n), static_cast<long long>(row.k), row.dtype.c_str(), row.time_us.mean,
                    row.time_us.min, row.time_us.max, row.rate, percent, error, row.spread.ratio, wrong);
        std::fflush(stdout);
      }
    }
  }
  const std::int64_t wrong_total = finish(run);
  if (leader) {
    std::printf("# rows: %d, wrong: %lld (relative error above the dtype's bound)%s\n", report_.summary.rows,
                static_cast<long long>(wrong_total), on_cpu ? "; ~ = peak estimated from cores x clock x FLOPs/cycle" : "");
    if (run.report.is_open()) std::printf("# report: %s\n", run.report.path().c_str());
  }
  return wrong_total > 0 ? static_cast<int>(ExitCode::kWrongResults) : 0;
}

}  // namespace

int run_matmul_perf(int argc, char** argv) { return run_compute_benchmark<MatmulBenchmark>(ComputeProgram::kMatmul, argc, argv); }

}  // namespace collbench::compute
