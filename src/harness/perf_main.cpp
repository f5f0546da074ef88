#include "harness/perf_main.h"

#include <sys/resource.h>

#include <cstdio>
#include <optional>
#include <sstream>
#include <vector>

#include "backends/registry.h"
#include "core/error.h"
#include "harness/agreement.h"
#include "harness/context.h"
#include "harness/input_checks.h"
#include "harness/program_shell.h"
#include "harness/runner.h"
#include "report/report_json.h"
#include "report/table.h"
#include "workloads/collective.h"

namespace collbench {
namespace {

std::string estimator_description(TimeAggregation aggregation) {
  switch (aggregation) {
    case TimeAggregation::kMean: return "mean over ranks (-a 1, as nccl-tests and OSU)";
    case TimeAggregation::kMax: return "max over ranks per iteration (-a 3: includes the ranks' skew)";
    case TimeAggregation::kMin: return "min over ranks per iteration (-a 2)";
    case TimeAggregation::kRankZero: return "rank 0's time (-a 0)";
  }
  return "";
}

std::string sweep_description(const Options& options) {
  std::ostringstream text;
  if (!options.explicit_sizes.empty()) {
    text << "sizes";
    for (auto size : options.explicit_sizes) text << ' ' << format_size(size);
  } else {
    text << "sizes " << format_size(options.sweep.min_bytes) << " .. " << format_size(options.sweep.max_bytes);
    if (options.sweep.step_factor > 0) text << " (factor " << options.sweep.step_factor << ")";
    else text << " (step " << format_size(options.sweep.step_bytes) << ")";
  }
  text << "; warm-up " << options.warmup_iterations << ", iterations " << options.iterations << ", check "
       << options.check_iterations << "\ntime (us) = " << estimator_description(options.aggregation)
       << "; the report also keeps the mean, max and min over ranks";
  // The table must not pass for a real measurement.
  if (options.inject_slowdown_percent > 0) text << "; every timed sample stretched by " << options.inject_slowdown_percent << " % (--inject-slowdown)";
  return text.str();
}

// Names only backends that can run here; a built one that cannot says why.
std::string build_features() {
#ifdef COLLBENCH_HAVE_CUDA
  return describe_backends() + "; cuda: yes";
#else
  return describe_backends() + "; cuda: no";
#endif
}

// The process's peak resident set so far (getrusage's ru_maxrss, KiB on Linux).
std::uint64_t peak_resident_bytes() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024u;
}

// -M 1: every rank's peak resident set, printed by rank 0 (nccl-tests prints GPU memory; on the
// host, the resident set is what a user sizing a run needs).
void report_peak_memory(World& world) {
  const auto peaks = world.gather_strings(std::to_string(peak_resident_bytes()));
  if (world.rank() != 0) return;
  for (std::size_t rank = 0; rank < peaks.size(); ++rank) {
    std::printf("# rank %zu: peak resident memory %.1f MiB\n", rank, std::stod(peaks[rank]) / (1024.0 * 1024.0));
  }
}

// --min-busbw / NCCL_TESTS_MIN_BW: nccl-tests' gate on the average bus bandwidth.
// Rank 0 only: it holds the rows.
bool below_min_busbw(const report::Summary& summary, const std::optional<double>& minimum_gbps) {
  if (!minimum_gbps) return false;
  const double average = summary.avg_busbw_gbps.value_or(0.0);
  if (average >= *minimum_gbps) return false;
  std::fprintf(stderr, "collbench: average bus bandwidth %.3f GB/s is below the minimum %.3f GB/s%s\n", average,
               *minimum_gbps, summary.avg_busbw_gbps ? "" : " (no row has a bus bandwidth: one rank moves no data)");
  return true;
}

// The few settings backends read; they never see the command line.
BackendConfig backend_config(const Options& options) {
  BackendConfig config;
  config.timeout_seconds = options.timeout_seconds;
  config.nccl_algo = options.nccl_algo;
  config.nccl_proto = options.nccl_proto;
  config.capture_nccl_algorithm = options.capture_nccl_algorithm;
  config.algorithm = options.nccl_algo;
  config.network_interface = options.gloo_iface;
  config.registration = options.registration;
  return config;
}

// A collective benchmark in the program shell: its options, its checks and the runner's sweep.
class CollectiveProgram final : public Program {
 public:
  CollectiveProgram(const Collective& collective, Options options)
      : collective_(collective), name_(std::string(collective.name) + "_perf"), options_(std::move(options)) {}

  const RunFlags& run_flags() const override { return options_; }
  std::string help_text() const override { return usage_text(name_); }
  std::string build_features() const override { return collbench::build_features(); }
  nlohmann::json options_identity() const override {
    // NCCL_TESTS_MIN_BW can set it without a flag, and -M adds an exchange at the end.
    return {{"min_busbw_gbps", options_.min_busbw_gbps.value_or(-1)}};
  }
  std::string check_for_world(World& world) override;
  MemoryNeed memory_need(int world_size) const override {
    // Only the mpi backend keeps its buffers in host memory; GPU backends stage through it.
    return {host_buffer_bytes_per_rank(collective_, options_, world_size, options_.backend == "mpi")};
  }
  int measure(RunContext& run) override;

 private:
  const Collective& collective_;
  std::string name_;
  Options options_;
  report::Report report_;
};

// A valid root and backend, and a backend every host can run: a built one that some host cannot
// run (no GPU visible) is named with the first such rank's reason, exit 1 before any library init.
std::string CollectiveProgram::check_for_world(World& world) {
  if (collective_.takes_root && options_.root != kEveryRoot && options_.root >= world.size()) {
    throw UsageError("root " + std::to_string(options_.root) + " is outside the world of " + std::to_string(world.size()) +
                     " rank(s) (use 0.." + std::to_string(world.size() - 1) + " or -1 for every root)");
  }
  if (options_.backend.empty()) options_.backend = default_backend_name(world.control_plane());
  const std::string conflict = backend_launch_conflict(options_.backend, world.control_plane());
  if (!conflict.empty()) throw UsageError(conflict);
  if (options_.gpus_per_process != 1) {
    throw UsageError("-g " + std::to_string(options_.gpus_per_process) + " is not supported by the " + options_.backend +
                     " backend: launch one process per GPU (mpirun -np <GPUs>) with -g 1");
  }
  if (options_.backend != "nccl") {
    const std::vector<std::string> gpu_only = options_.gpu_only_flags_in_use();
    if (!gpu_only.empty()) {
      std::string flags;
      for (const auto& flag : gpu_only) flags += (flags.empty() ? "" : ", ") + flag;
      throw UsageError(flags + (gpu_only.size() == 1 ? " is" : " are") + " for GPU backends only; the " + options_.backend +
                       " backend's calls complete on the host (drop " + (gpu_only.size() == 1 ? "it" : "them") +
                       " or use --backend nccl)");
    }
  }
  const auto reasons = world.gather_strings(backend_unusable_reason(options_.backend));
  for (std::size_t rank = 0; rank < reasons.size(); ++rank) {
    if (!reasons[rank].empty()) return "rank " + std::to_string(rank) + ": " + reasons[rank];
  }
  return "";
}

int CollectiveProgram::measure(RunContext& run) {
  World& world = run.world;
  const bool leader = world.rank() == 0;
  report::TableWriter table(stdout, {options_.report_issue_time, options_.report_timestamps});
  std::int64_t wrong_total = 0;
  std::unique_ptr<Backend> backend = make_backend(options_.backend, world, backend_config(options_));
  report_.benchmark = std::string(collective_.name);
  report_.context = collect_context(world, backend->name(), backend->device_description(), run.argv, options_, options_as_json(options_));
  for (const auto& [library, version] : backend->versions()) report_.context.versions[library] = version;
  auto save = [&] { run.report.save(report::to_json(report_)); };
  save();  // an empty partial report exists from the start, so even an early failure leaves one
  if (leader) table.header(report_, sweep_description(options_));

  // Rows are appended to the held report as they complete, with a running summary: a whole
  // rebuild per row would make a run of many rows quadratic.
  report::SummaryBuilder summary;
  RunnerEvents events;
  events.row_completed = [&](const report::ResultRow& row) {
    wrong_total += row.wrong.value_or(0);
    if (!leader) return;
    report_.results.push_back(row);
    summary.add(row);
    run.report.update([&](nlohmann::json& document) {
      document["results"].push_back(report::to_json(row));
      document["summary"] = report::to_json(summary.summary());
    });
  };
  events.size_completed = [&](const report::ResultRow* out_of_place, const report::ResultRow* in_place) {
    if (leader) table.line(out_of_place, in_place);
  };
  events.case_skipped = [&](const report::SkippedCase& skipped) {
    if (!leader) return;
    report_.skipped.push_back(skipped);
    table.skipped(skipped);
    run.report.update([&](nlohmann::json& document) { document["skipped"].push_back(report::to_json(skipped)); });
  };
  CollectiveRunner(collective_, options_, world, *backend, run.watchdog, events).run();

  report_.summary = report::summarize_rows(report_.results);
  save();
  if (leader) table.footer(report_, options_.report_path);
  if (options_.memory_report) report_peak_memory(world);
  if (wrong_total > 0) return static_cast<int>(ExitCode::kWrongResults);
  // Rank 0 holds the rows and judges; every rank exits the same way.
  const bool below = world.sum(leader && below_min_busbw(report_.summary, options_.min_busbw_gbps) ? 1 : 0) > 0;
  return below ? static_cast<int>(ExitCode::kRuntimeError) : static_cast<int>(ExitCode::kOk);
}

}  // namespace

int run_collective_perf(std::string_view collective_name, int argc, char** argv) {
  const Collective* collective = find_collective(collective_name);
  if (!collective) {
    std::fprintf(stderr, "collbench: internal error: no collective named '%.*s'\n",
                 static_cast<int>(collective_name.size()), collective_name.data());
    return static_cast<int>(ExitCode::kRuntimeError);
  }
  return run_program(std::string(collective->name) + "_perf", argc, argv, [collective](const std::vector<std::string>& args) {
    return std::make_unique<CollectiveProgram>(*collective, parse_options(args));
  });
}

}  // namespace collbench
