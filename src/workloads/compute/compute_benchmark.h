// matmul_perf, membw_perf and envcheck: what they share (options, help, build features, report
// context). matmul_perf and membw_perf are throughput workloads over the harness's one driver
// (harness/driver.h): every rank measures its own device, each row keeps every rank's figures.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "workloads/compute/compute_options.h"
#include "workloads/compute/platform_notes.h"
#include "workloads/compute/rank_gather.h"
#include "core/error.h"
#include "core/world.h"
#include "engines/host_info.h"
#include "harness/context.h"
#include "harness/driver.h"
#include "harness/measurement_loop.h"
#include "harness/program_shell.h"
#include "report/report_json.h"

namespace collbench::compute {

std::string compute_build_features();
// Whether this rank's buffers will be in host memory (the CPU engines), so that their size is
// checked before anything is allocated; GPU engines allocate on the device.
bool runs_on_host(const ComputeOptions& options);
// The report context of a compute run: every rank's identity (collective call) and these options.
report::Context compute_context(World& world, const ComputeOptions& options, const std::string& device,
                                const std::vector<std::string>& argv);

// The GPU engine unless --device cpu; the CPU one where there is none, unless --device gpu.
template <typename Engine>
std::unique_ptr<Engine> choose_engine(const ComputeOptions& options, int local_rank, int threads,
                                      std::unique_ptr<Engine> (*make_gpu)(int, std::string*),
                                      std::unique_ptr<Engine> (*make_cpu)(int)) {
  if (options.device != DeviceChoice::kCpu) {
    std::string why_not;
    auto gpu = make_gpu(local_rank, &why_not);
    if (gpu) return gpu;
    if (options.device == DeviceChoice::kGpu) throw Error("--device gpu: " + why_not);
  }
  return make_cpu(threads);
}

// matmul_perf and membw_perf: rows of one throughput kind (gemm, stream) measured by one engine
// per rank (GemmEngine, StreamEngine).
template <typename Engine>
class ThroughputWorkload : public Workload {
 public:
  explicit ThroughputWorkload(ComputeOptions options) : options_(std::move(options)) {}

  const RunFlags& run_flags() const override { return options_; }
  std::string help_text() const override { return compute_usage_text(options_.program); }
  std::string build_features() const override { return compute_build_features(); }
  std::string check_for_world(World&) override { return ""; }

 protected:
  // A throughput row's time is the slowest rank's per iteration (-a 3): every rank measures its
  // own device, and each rank's own figures are kept beside it.
  LoopSettings loop_settings() const override { return loop_settings_from(options_, TimeAggregation::kMax); }
  void end_run() override { engine_.reset(); }

  // Rank 0's closing lines; `wrong_text` says what the run's wrong count counts.
  int finish(RunContext& run, nlohmann::json&, std::int64_t wrong_total) override {
    if (run.world.rank() != 0) return 0;
    std::printf("# rows: %d, %s\n", row_summary().rows(), wrong_text(wrong_total).c_str());
    if (run.report.is_open()) std::printf("# report: %s\n", run.report.path().c_str());
    return 0;
  }
  virtual std::string wrong_text(std::int64_t wrong_total) const = 0;

  // This rank's engine (choose_engine) and CPU threads; returns the host it probed.
  HostInfo start_engine(RunContext& run, std::unique_ptr<Engine> (*make_gpu)(int, std::string*),
                        std::unique_ptr<Engine> (*make_cpu)(int)) {
    const HostInfo host = probe_host();
    threads_ = options_.threads > 0 ? options_.threads : host.affinity_cores;
    engine_ = choose_engine(options_, run.world.local_rank(), threads_, make_gpu, make_cpu);
    on_cpu_ = engine_->device() == "cpu";
    return host;
  }

  // The report without rows: context and every rank's platform (collective calls); rank 0 prints
  // the platforms' warnings.
  nlohmann::json start_report(RunContext& run, const std::string& benchmark, const std::string& device,
                              const report::RankPlatform& mine) {
    nlohmann::json report = report::envelope_json(benchmark, compute_context(run.world, options_, device, run.argv));
    const std::vector<report::RankPlatform> platform = gather_platforms(run.world, mine);
    const std::vector<std::string> warnings = distinct_warnings(platform);
    if (run.world.rank() == 0) {
      for (const auto& warning : warnings) {
        std::fprintf(stderr, "%s: warning: %s\n", program_name(options_.program).c_str(), warning.c_str());
      }
    }
    report.update({{"platform", platform}, {"warnings", warnings}, {"skipped", nlohmann::json::array()}});
    return report;
  }

  // Every rank, once `per_rank` holds every rank's figures: the row of `fields` (what the kind
  // identifies) with what every throughput kind fills the same way (`work` per iteration over the
  // mean time, in units of `scale`), under the kind's headline unit ("tflops", "gbps").
  // The row's wrong count is the ranks' own (GEMM: ranks whose error exceeded the bound).
  nlohmann::json finish_row(nlohmann::json fields, const std::vector<report::ThroughputRank>& per_rank, const std::string& device,
                            int threads, double work, double scale, const std::optional<double>& peak,
                            report::Measurement measured) const {
    const std::string unit = report::row_kind_spec(row_kind()).figures.front().path;
    const double rate = work / (measured.time_us.mean * 1e-6) / scale;
    if (measured.check_iterations > 0) {
      std::int64_t wrong = 0;
      for (const auto& rank : per_rank) wrong += rank.wrong.value_or(0);
      measured.wrong = wrong;
    }
    fields.update({{"device", device},
                   {"threads", threads},
                   {unit, rate},
                   {"peak_" + unit, report::json_or_null(peak)},
                   {"percent_of_peak", peak ? nlohmann::json(100.0 * rate / *peak) : nlohmann::json(nullptr)},
                   {"per_rank", rank_figures_json(per_rank, unit)},
                   {"spread", report::to_json(spread_of_ranks(per_rank), unit.c_str())}});
    return report::row_json(row_kind(), std::move(fields), measured);
  }

  ComputeOptions options_;
  std::unique_ptr<Engine> engine_;
  int threads_ = 0;
  bool on_cpu_ = true;
};

// The shell around one compute program; `Benchmark` is built from the parsed options.
template <typename Benchmark>
int run_compute_benchmark(ComputeProgram program, int argc, char** argv) {
  return run_program(program_name(program), argc, argv, [program](const std::vector<std::string>& args) {
    return std::make_unique<Benchmark>(parse_compute_options(program, args));
  });
}

}  // namespace collbench::compute
