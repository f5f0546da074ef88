#include "harness/perf_main.h"

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <vector>

#include "harness/agreement.h"
#include "harness/input_checks.h"
#include "harness/job_watchdog.h"
#include "harness/launcher_env.h"
#include "backends/mpi/mpi_world.h"
#include "backends/registry.h"
#include "harness/context.h"
#include "core/error.h"
#include "harness/runner.h"
#include "harness/watchdog.h"
#include "report/report_file.h"
#include "report/table.h"
#include "workloads/collective.h"

namespace collbench {
namespace {

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
       << options.check_iterations << "; iteration time = " << to_string(options.aggregation) << " over ranks";
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

// The few settings backends read; they never see the command line.
BackendConfig backend_config(const Options& options) {
  return {options.timeout_seconds, options.blocking,   options.graph_calls,
          options.nccl_algo,       options.nccl_proto, options.capture_nccl_algorithm, options.nccl_algo, options.gloo_iface};
}

// Checks that need the world size; identical on every rank.
void validate_for_world(const Options& options, const Collective& collective, int world_size) {
  if (collective.takes_root && options.root != kEveryRoot && options.root >= world_size) {
    throw UsageError("root " + std::to_string(options.root) + " is outside the world of " + std::to_string(world_size) +
                     " rank(s) (use 0.." + std::to_string(world_size - 1) + " or -1 for every root)");
  }
}

class PerfProgram {
 public:
  PerfProgram(const Collective& collective, std::vector<std::string> argv)
      : collective_(collective), program_(std::string(collective.name) + "_perf"), argv_(std::move(argv)) {}

  int run(int* argc, char*** argv);

 private:
  int fail_usage(const std::string& message, bool print) const {
    if (print) std::fprintf(stderr, "%s: error: %s\n", program_.c_str(), message.c_str());
    return static_cast<int>(ExitCode::kUsage);
  }
  std::optional<int> agree_before_start(mpi::MpiWorld& world, Options& options,
                                        std::optional<report::ReportFile>& report_file);
  int measure(mpi::MpiWorld& world, const Options& options, std::optional<report::ReportFile>& report_file);

  const Collective& collective_;
  std::string program_;
  std::vector<std::string> argv_;
  report::Report report_;
};

int PerfProgram::run(int* argc, char*** argv) {
  // Flags are checked before MPI starts, so a typo fails at once, printed by one rank only.
  const bool printer = launcher_rank() == 0;
  Options options;
  try {
    options = parse_options(std::vector<std::string>(argv_.begin() + 1, argv_.end()));
  } catch (const UsageError& e) {
    return fail_usage(e.what(), printer);
  }
  if (options.show_help) {
    if (printer) std::fputs(usage_text(program_).c_str(), stdout);
    return 0;
  }
  if (options.show_version) {
    if (printer) std::printf("collbench %s (%s)\n", collbench_version().c_str(), build_features().c_str());
    return 0;
  }

  mpi::MpiSession session(argc, argv);
  std::optional<mpi::MpiWorld> world;
  try {
    world.emplace();
  } catch (const Error& e) {
    std::fprintf(stderr, "%s: error: %s\n", program_.c_str(), e.what());
    return static_cast<int>(ExitCode::kRuntimeError);
  }
  std::optional<report::ReportFile> report_file;
  try {
    if (const std::optional<int> exit_code = agree_before_start(*world, options, report_file)) return *exit_code;
  } catch (const Error& e) {
    // A library call failed on this rank while the others may be waiting for it: end the job.
    std::fprintf(stderr, "%s: error: %s\n", program_.c_str(), e.what());
    world->abort(static_cast<int>(ExitCode::kRuntimeError));
  }
  return measure(*world, options, report_file);
}

// Everything every rank must agree on before the first collective, each step identical on every
// rank so that all leave together: the same options (app/agreement.h), a valid root and backend,
// a backend every host can run, buffers that fit in memory (app/input_checks.h), and a report
// path rank 0 can write. Returns the exit code to leave with, or nothing to go on.
std::optional<int> PerfProgram::agree_before_start(mpi::MpiWorld& world, Options& options,
                                                   std::optional<report::ReportFile>& report_file) {
  const bool leader = world.rank() == 0;
  const std::string disagreement = options_disagreement(world, program_, options, argv_);
  if (!disagreement.empty()) return fail_usage(disagreement, leader);
  try {
    validate_for_world(options, collective_, world.size());
    if (options.backend.empty()) options.backend = default_backend_name();
    if (options.gpus_per_process != 1) {
      throw UsageError("-g " + std::to_string(options.gpus_per_process) + " is not supported by the " + options.backend +
                       " backend: launch one process per GPU (mpirun -np <GPUs>) with -g 1");
    }
  } catch (const UsageError& e) {
    return fail_usage(e.what(), leader);
  }
  // A backend this build has but some host cannot run (no GPU visible): the first such rank's
  // reason is printed once and every rank leaves with exit 1 before any library init.
  const auto reasons = world.gather_strings(backend_unusable_reason(options.backend));
  for (std::size_t rank = 0; rank < reasons.size(); ++rank) {
    if (reasons[rank].empty()) continue;
    if (leader) std::fprintf(stderr, "%s: error: rank %zu: %s\n", program_.c_str(), rank, reasons[rank].c_str());
    return static_cast<int>(ExitCode::kRuntimeError);
  }
  const std::string shortfall = memory_shortfall(world, collective_, options);
  if (!shortfall.empty()) {
    if (leader) std::fprintf(stderr, "%s: error: %s\n", program_.c_str(), shortfall.c_str());
    return static_cast<int>(ExitCode::kRuntimeError);
  }
  // Only rank 0 writes the report, so only rank 0 can tell whether its path is usable.
  std::string report_problem;
  if (leader && !options.report_path.empty()) {
    try {
      report_file.emplace(options.report_path, options.overwrite_report);
      report_problem = report_write_problem(options.report_path);  // /proc, read-only mounts, full disks
    } catch (const UsageError& e) {
      report_problem = e.what();
    }
  }
  report_problem = world.broadcast_string(report_problem);
  if (!report_problem.empty()) return fail_usage(report_problem, leader);
  return std::nullopt;
}

int PerfProgram::measure(mpi::MpiWorld& world, const Options& options, std::optional<report::ReportFile>& report_file) {
  const bool leader = world.rank() == 0;
  report::TableWriter table(stdout);
  std::int64_t wrong_total = 0;
  try {
    std::unique_ptr<Backend> backend = make_backend(options.backend, world, backend_config(options));
    report_.benchmark = std::string(collective_.name);
    report_.context = collect_context(world, backend->name(), backend->device_description(), argv_, options);
    for (const auto& [library, version] : backend->versions()) report_.context.versions[library] = version;
    auto save = [&] {
      if (leader && report_file) report_file->write(report_);
    };
    save();  // an empty partial report exists from the start, so even an early failure leaves one
    if (leader) table.header(report_, sweep_description(options));

    // -T: every rank watches its own progress and the other ranks' (app/job_watchdog.h).
    std::optional<JobWatchdog> watchdog;
    if (options.timeout_seconds > 0) watchdog.emplace(world, options.timeout_seconds, program_, options.report_path);
    RunnerEvents events;
    events.row_completed = [&](const report::ResultRow& row) {
      wrong_total += row.wrong.value_or(0);
      if (!leader) return;
      report_.results.push_back(row);
      report_.summary = report::summarize_rows(report_.results);
      save();
    };
    events.size_completed = [&](const report::ResultRow* out_of_place, const report::ResultRow* in_place) {
      if (leader) table.line(out_of_place, in_place);
    };
    events.case_skipped = [&](const report::SkippedCase& skipped) {
      if (!leader) return;
      report_.skipped.push_back(skipped);
      table.skipped(skipped);
      save();
    };
    CollectiveRunner runner(collective_, options, world, *backend, watchdog ? &watchdog->progress_watch() : nullptr, events);
    runner.run();
    watchdog.reset();

    report_.status = "complete";
    report_.context.end_time = utc_timestamp_now();
    report_.summary = report::summarize_rows(report_.results);
    save();
    if (leader) table.footer(report_, options.report_path);
  } catch (const UsageError& e) {
    return fail_usage(e.what(), leader);  // raised identically on every rank
  } catch (const std::exception& e) {
    // Possibly this rank alone: keep what was measured, say what happened, end the whole job.
    const auto* error = dynamic_cast<const Error*>(&e);
    const int code = static_cast<int>(error ? error->code() : ExitCode::kRuntimeError);
    std::fprintf(stderr, "%s: error on rank %d (%s): %s\n", program_.c_str(), world.rank(), world.host().c_str(), e.what());
    if (leader && report_file) {
      report_.error = e.what();
      report_.context.end_time = utc_timestamp_now();
      try {
        report_file->write(report_);
      } catch (const std::exception&) {
        // the error above is the one worth reporting
      }
    }
    world.abort(code);
  }
  return wrong_total > 0 ? static_cast<int>(ExitCode::kWrongResults) : static_cast<int>(ExitCode::kOk);
}

}  // namespace

int run_collective_perf(std::string_view collective_name, int argc, char** argv) {
  const Collective* collective = find_collective(collective_name);
  if (!collective) {
    std::fprintf(stderr, "collbench: internal error: no collective named '%.*s'\n",
                 static_cast<int>(collective_name.size()), collective_name.data());
    return static_cast<int>(ExitCode::kRuntimeError);
  }
  PerfProgram program(*collective, std::vector<std::string>(argv, argv + argc));
  return program.run(&argc, &argv);
}

}  // namespace collbench
