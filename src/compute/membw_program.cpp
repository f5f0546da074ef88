// membw_perf: STREAM copy/scale/add/triad over every rank's own memory, every array verified.
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
#include "core/sizes.h"
#include "harness/measurement_loop.h"
#include "harness/watchdog.h"
#include "report/report_json.h"

namespace collbench::compute {
namespace {

// The STREAM workload: array sizes x kernels over a STREAM engine, each timed by the harness's loop.
class MembwBenchmark final : public ThroughputBenchmark<report::MembwRow> {
 public:
  using ThroughputBenchmark::ThroughputBenchmark;
  MemoryNeed memory_need(int) const override {
    if (!runs_on_host()) return {};
    const auto sizes = options_.array_sizes();
    return {3 * *std::max_element(sizes.begin(), sizes.end()), "the sweep needs", "lower -e or --sizes, or use fewer ranks per host"};
  }
  int measure(RunContext& run) override;
};

int MembwBenchmark::measure(RunContext& run) {
  World& world = run.world;
  const ComputeOptions& options = options_;
  const bool leader = world.rank() == 0;
  const HostInfo host = probe_host();
  const int threads = options.threads > 0 ? options.threads : host.affinity_cores;
  std::unique_ptr<StreamEngine> engine =
      choose_engine(options, world.local_rank(), threads, &make_gpu_stream_engine, &make_cpu_stream_engine);
  const bool on_cpu = engine->device() == "cpu";
  std::vector<StreamKernel> kernels = options.kernels;
  if (!on_cpu && !options.kernels_given) kernels.push_back(StreamKernel::kMemcpy);
  start(run, engine->device(), local_platform(host, options.threads, on_cpu ? threads : 0, world.size(), engine->device(),
                                              on_cpu ? "OpenMP" : "CUDA", false));
  if (leader) {
    std::printf("# membw_perf: %d rank(s); rank 0: %s%s\n", world.size(), engine->device().c_str(),
                on_cpu ? (", " + std::to_string(threads) + " OpenMP threads").c_str() : "");
    std::printf("# GB/s = 1e9 B/s of bytes counted as STREAM does; time = max over ranks per iteration\n");
    std::printf("#%14s %8s %12s %12s %12s %10s %8s %9s %8s\n", "bytes/array", "kernel", "mean_us", "min_us", "max_us",
                "GB/s", "%peak", "spread", "#wrong");
  }
  const int last_rank = world.size() - 1;
  for (int cycle = 1; cycle <= options.cycles; ++cycle) {
    for (std::uint64_t bytes : options.array_sizes()) {
      const std::uint64_t elements = bytes / sizeof(double);
      engine->prepare(elements);
      for (StreamKernel kernel : kernels) {
        const std::string reason = engine->unsupported_reason(kernel);
        if (!reason.empty()) {
          if (leader && std::none_of(report_.skipped.begin(), report_.skipped.end(),
                                     [&](const report::ComputeSkipped& s) { return s.what == to_string(kernel); })) {
            report_.skipped.push_back({to_string(kernel), reason});
            std::printf("# skipped %s: %s\n", to_string(kernel).c_str(), reason.c_str());
            save(run);
          }
          continue;
        }
        FunctionOperation pass(engine->schedule(), [&](int) { engine->issue(kernel); }, [&] { engine->wait(); });
        LoopResult timed = time_iterations(world, loop_settings(options), pass,
                                           run.watchdog, "membw " + to_string(kernel) + " at " + std::to_string(bytes) + " B");
        const std::uint64_t counted = stream_bytes_counted(kernel, elements);
        report::ThroughputRank figures;
        figures.time_us = timed.mine;
        figures.rate = static_cast<double>(counted) / (figures.time_us.mean * 1e-6) / 1e9;
        const auto peak = engine->peak_gbps();
        if (peak) figures.percent_of_peak = 100.0 * figures.rate / *peak;
        if (options.check_iterations > 0) {
          std::int64_t wrong = 0;
          for (int check = 0; check < options.check_iterations; ++check) {
            wrong += engine->check(kernel, options.inject_corrupt_output && world.rank() == last_rank);
            if (run.watchdog) run.watchdog->progress();
          }
          figures.wrong = wrong;
          engine->prepare(elements);  // the check's pattern is not STREAM's; start the next kernel as STREAM does
        }
        report::MembwRow row;
        row.per_rank = gather_rank_figures(world, figures);
        row.time_us = timed.combined;
        if (!leader) continue;
        row.kernel = to_string(kernel);
        row.bytes = elements * sizeof(double);
        row.bytes_counted = counted;
        add_row(run, row, engine->device(), on_cpu ? threads : 0, static_cast<double>(counted), 1e9, peak, cycle, timed);
        char percent[16] = "n/a", wrong[24] = "N/A";
        if (row.percent_of_peak) std::snprintf(percent, sizeof(percent), "%.1f", *row.percent_of_peak);
        if (row.wrong) std::snprintf(wrong, sizeof(wrong), "%lld", static_cast<long long>(*row.wrong));
        std::printf(" %14llu %8s %12.1f %12.1f %12.1f %10.2f %8s %8.3fx %8s\n", static_cast<unsigned long long>(row.bytes),
                    row.kernel.c_str(), row.time_us.mean, row.time_us.min, row.time_us.max, row.rate, percent, row.spread.ratio,
                    wrong);
        std::fflush(stdout);
      }
    }
  }
  const std::int64_t wrong_total = finish(run);
  if (leader) {
    std::printf("# rows: %d, wrong elements: %lld\n", report_.summary.rows, static_cast<long long>(wrong_total));
    if (run.report.is_open()) std::printf("# report: %s\n", run.report.path().c_str());
  }
  return wrong_total > 0 ? static_cast<int>(ExitCode::kWrongResults) : 0;
}

}  // namespace

int run_membw_perf(int argc, char** argv) { return run_compute_benchmark<MembwBenchmark>(ComputeProgram::kMembw, argc, argv); }

}  // namespace collbench::compute
