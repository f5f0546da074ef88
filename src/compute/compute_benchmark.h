// matmul_perf, membw_perf and envcheck as programs of the harness's shell (harness/program_shell.h):
// what they share (options, identity, help, report context, row extras); each program adds its
// workload over an engine (compute/engines.h) and measures it through harness/measurement_loop.h.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compute/compute_options.h"
#include "compute/platform_notes.h"
#include "compute/rank_gather.h"
#include "core/error.h"
#include "core/world.h"
#include "harness/context.h"
#include "harness/measurement_loop.h"
#include "harness/program_shell.h"
#include "report/report_json.h"

namespace collbench::compute {

// The loop settings of a throughput row: every rank measures its own device, so a row's time is
// the slowest rank's per iteration (-a 3), and each rank's own figures are kept beside it.
inline LoopSettings loop_settings(const ComputeOptions& options) {
  LoopSettings settings;
  settings.warmup_iterations = options.warmup_iterations;
  settings.iterations = options.iterations;
  settings.aggregation = TimeAggregation::kMax;
  settings.inject_slowdown_percent = options.inject_slowdown_percent;
  return settings;
}

class ComputeBenchmark : public Program {
 public:
  explicit ComputeBenchmark(ComputeOptions options) : options_(std::move(options)) {}

  const RunFlags& run_flags() const override { return options_; }
  std::string help_text() const override { return compute_usage_text(options_.program); }
  std::string build_features() const override;
  std::string check_for_world(World&) override { return ""; }

 protected:
  // Whether this rank's buffers will be in host memory (the CPU engines), so that their size is
  // checked before anything is allocated; GPU engines allocate on the device.
  bool runs_on_host() const;
  // The report context of a compute run: every rank's identity (collective call) and these options.
  report::Context context(World& world, const std::string& device, const std::vector<std::string>& argv) const;

  ComputeOptions options_;
};

// What a compute row holds besides its typed fields: the cycle (-N) and, with --samples, every
// iteration's time combined over ranks. Written as extra keys of the row (schema 2.x adds keys).
struct RowExtras {
  int cycle = 1;
  std::vector<double> samples_us;
};
nlohmann::json with_row_extras(nlohmann::json document, const std::vector<RowExtras>& extras);

nlohmann::json compute_options_as_json(const ComputeOptions& options);

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

// Rows, checked rows, wrong elements, the best rate and the worst fastest/slowest rank ratio.
template <typename Row>
report::ComputeSummary summarize_throughput(const std::vector<Row>& rows) {
  report::ComputeSummary summary;
  for (const Row& row : rows) {
    ++summary.rows;
    if (row.wrong) {
      ++summary.rows_checked;
      summary.wrong_total += *row.wrong;
    }
    summary.max_rate = std::max(summary.max_rate.value_or(0.0), row.rate);
    if (std::isfinite(row.spread.ratio)) {
      summary.worst_spread_ratio = std::max(summary.worst_spread_ratio.value_or(1.0), row.spread.ratio);
    }
  }
  return summary;
}

// matmul_perf and membw_perf: rows of one throughput kind; the report is saved, with its summary
// and row extras, whenever it changes.
template <typename Row>
class ThroughputBenchmark : public ComputeBenchmark {
 public:
  using ComputeBenchmark::ComputeBenchmark;

 protected:
  void save(RunContext& run) {
    report_.summary = summarize_throughput(report_.results);
    run.report.save(with_row_extras(report::to_json(report_), extras_));
  }

  // The context and every rank's platform (collective calls); rank 0 prints the platforms' warnings.
  void start(RunContext& run, const std::string& device, const report::RankPlatform& mine) {
    report_.context = context(run.world, device, run.argv);
    report_.platform = gather_platforms(run.world, mine);
    report_.warnings = distinct_warnings(report_.platform);
    save(run);
    if (run.world.rank() != 0) return;
    for (const auto& warning : report_.warnings) {
      std::fprintf(stderr, "%s: warning: %s\n", program_name(options_.program).c_str(), warning.c_str());
    }
  }

  // Rank 0, once `row` holds every rank's figures and its combined time: what every kind fills the
  // same way (`work` per iteration over the mean time, in units of `scale`), then the row goes in.
  void add_row(RunContext& run, Row& row, const std::string& device, int threads, double work, double scale,
               const std::optional<double>& peak, int cycle, const LoopResult& timed) {
    row.device = device;
    row.threads = threads;
    row.iterations = options_.iterations;
    row.warmup_iterations = options_.warmup_iterations;
    row.rate = work / (row.time_us.mean * 1e-6) / scale;
    row.peak = peak;
    if (peak) row.percent_of_peak = 100.0 * row.rate / *peak;
    row.check_iterations = options_.check_iterations;
    if (options_.check_iterations > 0) {
      std::int64_t wrong = 0;
      for (const auto& rank : row.per_rank) wrong += rank.wrong.value_or(0);
      row.wrong = wrong;
    }
    row.spread = spread_of_ranks(row.per_rank);
    report_.results.push_back(row);
    extras_.push_back({cycle, options_.keep_samples ? timed.combined_us : std::vector<double>{}});
    save(run);
  }

  // Saves the last rows; returns the wrong total of the job on every rank (a collective call).
  std::int64_t finish(RunContext& run) {
    save(run);
    return run.world.sum(run.world.rank() == 0 ? report_.summary.wrong_total : 0);
  }

  report::ThroughputReport<Row> report_;
  std::vector<RowExtras> extras_;
};

// The shell around one compute program; `make` builds it from the parsed options.
template <typename Benchmark>
int run_compute_benchmark(ComputeProgram program, int argc, char** argv) {
  return run_program(program_name(program), argc, argv, [program](const std::vector<std::string>& args) {
    return std::make_unique<Benchmark>(parse_compute_options(program, args));
  });
}

}  // namespace collbench::compute
