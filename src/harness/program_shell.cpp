#include "harness/program_shell.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "backends/gloo/gloo_world.h"
#include "backends/mpi/mpi_world.h"
#include "core/error.h"
#include "core/printable.h"
#include "harness/agreement.h"
#include "harness/context.h"
#include "harness/driver.h"
#include "harness/input_checks.h"
#include "harness/interrupt_watcher.h"
#include "harness/job_watchdog.h"
#include "harness/launcher_env.h"
#include "harness/watchdog.h"
#include "report/report_file.h"

namespace collbench {
namespace {

class Shell {
 public:
  Shell(std::string name, const ProgramSpec& program, std::vector<std::string> argv)
      : name_(std::move(name)), program_(program), argv_(std::move(argv)) {}

  int run(int* argc, char*** argv);

 private:
  int fail(ExitCode code, const std::string& message, bool print) const {
    // Messages can quote a file or a peer (a model file's tensor name, a rank's host name, a
    // verdict in the rendezvous store, a join record in a file).
    if (print) std::fprintf(stderr, "%s: error: %s\n", name_.c_str(), printable(message).c_str());
    return static_cast<int>(code);
  }
  std::optional<int> agree_before_start(World& world);
  int measure(World& world, std::optional<Watchdog>& start_up_watch);
  [[noreturn]] void end_interrupted(const std::string& what);
  [[noreturn]] void end_start_up_timeout(int rank, const std::string& host, const std::string& step);
  void arm_start_up_watch(std::optional<Watchdog>& watch, int rank, const std::string& host, double grace_seconds = 0) {
    if (const double timeout_seconds = program_.flags->timeout_seconds; timeout_seconds > 0) {
      watch.emplace(timeout_seconds + grace_seconds,
                    [this, rank, host](const std::string& step) { end_start_up_timeout(rank, host, step); });
    }
  }

  // Whether this rank prints a line every rank shares: rank 0 under an MPI launcher (one copy is
  // enough, the launcher merges the output), every rank without one (nobody else shows it).
  bool prints_shared_lines(const World& world) const { return world.rank() == 0 || !launched_by_mpi_; }

  std::string name_;
  const ProgramSpec& program_;
  bool launched_by_mpi_ = true;
  std::vector<std::string> argv_;
  ReportWriter report_;
};

int Shell::run(int* argc, char*** argv) {
  // Before MPI or Gloo start their threads, so that they inherit the blocked signals.
  InterruptWatcher interrupts([this](const std::string& what) { end_interrupted(what); });
  // mpirun/srun: MPI carries the control plane, as always. RANK/WORLD_SIZE without a launcher
  // (or --bootstrap env): the ranks meet in a store and Gloo carries it; MPI is never initialised.
  // Without a launcher each process prints its own line: nobody else would show it.
  const EnvironmentLookup environment = [](const char* name) -> const char* { return std::getenv(name); };
  LaunchPlan plan;
  try {
    plan = plan_launch(*program_.flags, environment);
  } catch (const UsageError& e) {
    return fail(ExitCode::kUsage, e.what(), !started_by_mpi_launcher(environment) || launcher_rank() == 0);
  }
  launched_by_mpi_ = plan.use_mpi;
  std::optional<mpi::MpiSession> session;
  std::unique_ptr<World> world;  // ends before the session
  // -T from the moment the ranks have met until the job watchdog (and its heartbeats) runs: the
  // agreement on options and the heartbeats' own connections wait on every rank, and a rank
  // stopped in between must end the job with exit 4 within -T like one stopped later. Declared
  // after the world, so it ends first.
  std::optional<Watchdog> start_up_watch;
  try {
    if (plan.use_mpi) {
      session.emplace(argc, argv, program_.calls_mpi_from_a_second_thread);
      world = std::make_unique<mpi::MpiWorld>();
    } else {
      // Gloo writes to its sockets with writev, which raises SIGPIPE when a peer has died; that
      // would end this rank silently (exit 141) before the watchdog could name the dead rank.
      // Ignored, the write fails with EPIPE and Gloo reports it as an error.
      std::signal(SIGPIPE, SIG_IGN);
      // -T from the moment the ranks have met: one deadline for Gloo's connections, the
      // verdict check and the agreement below, each of which would otherwise wait -T of its own
      // for a rank stopped since it joined. The grace lets a step that gave up at -T read the
      // verdict another rank left (a duplicate RANK: exit 2) before this says timeout.
      constexpr double kVerdictGraceSeconds = 2;
      world = join_gloo_world(plan.store, [&] {
        arm_start_up_watch(start_up_watch, plan.store.rank, this_host(), kVerdictGraceSeconds);
      });
    }
  } catch (const UsageError& e) {
    return fail(ExitCode::kUsage, e.what(), true);
  } catch (const Error& e) {
    return fail(e.code(), e.what(), true);  // 4: a rank stopped answering while connecting
  }
  if (!start_up_watch) arm_start_up_watch(start_up_watch, world->rank(), world->host());
  try {
    if (const std::optional<int> exit_code = agree_before_start(*world)) return *exit_code;
  } catch (const Error& e) {
    // A library call failed on this rank while the others may be waiting for it: end the job, with
    // the error's own code (4 where a Gloo pair found a rank gone: a lost rank, as the watchdog's).
    std::fprintf(stderr, "%s: error: %s\n", name_.c_str(), printable(e.what()).c_str());
    world->abort(static_cast<int>(e.code()));
  }
  return measure(*world, start_up_watch);
}

// Everything every rank must agree on before the first measurement, each step identical on every
// rank so that all leave together: the same options, the program's own checks, memory for its
// buffers, and a report path rank 0 can write. Returns the exit code to leave with, or nothing.
std::optional<int> Shell::agree_before_start(World& world) {
  const bool leader = world.rank() == 0;
  const bool printer = prints_shared_lines(world);
  const std::string disagreement = options_disagreement(
      world, options_identity_text(name_, program_.options_identity, *program_.flags), argv_);
  if (!disagreement.empty()) return fail(ExitCode::kUsage, disagreement, printer);
  if (const int slow_rank = program_.flags->inject_slowdown_rank; slow_rank >= world.size()) {
    return fail(ExitCode::kUsage, "--inject-slowdown-rank " + std::to_string(slow_rank) + " is not a rank of this " +
                    std::to_string(world.size()) + "-rank run", printer);
  }
  std::string problem;
  try {
    if (program_.check_for_world) problem = program_.check_for_world(world);
  } catch (const UsageError& e) {
    return fail(ExitCode::kUsage, e.what(), printer);
  }
  if (!problem.empty()) return fail(ExitCode::kRuntimeError, problem, printer);
  const std::string shortfall = memory_shortfall(world, program_.memory_need ? program_.memory_need(world.size()) : MemoryNeed{});
  if (!shortfall.empty()) return fail(ExitCode::kRuntimeError, shortfall, printer);
  // Only rank 0 writes the report, so only rank 0 can tell whether its path is usable.
  const RunFlags& flags = *program_.flags;
  std::string report_problem;
  if (leader && !flags.report_path.empty()) {
    try {
      report_.open(flags.report_path, flags.overwrite_report);  // claims the path for this run
      report_problem = report_write_problem(flags.report_path);  // /proc, read-only mounts, full disks
    } catch (const UsageError& e) {
      report_problem = e.what();
    }
  }
  report_problem = world.broadcast_string(report_problem);
  if (!report_problem.empty()) return fail(ExitCode::kUsage, report_problem, printer);
  return std::nullopt;
}

int Shell::measure(World& world, std::optional<Watchdog>& start_up_watch) {
  const bool printer = prints_shared_lines(world);
  // -T: every rank watches its own progress and the other ranks' (harness/job_watchdog.h).
  std::optional<JobWatchdog> watchdog;
  try {
    const double timeout_seconds = program_.flags->timeout_seconds;
    if (timeout_seconds > 0) {
      watchdog.emplace(world, timeout_seconds, name_, [this](const std::string& error) { report_.record_error(error); });
    }
    start_up_watch.reset();  // the job watchdog has taken over
    RunContext run{world, report_, watchdog ? &watchdog->progress_watch() : nullptr, argv_};
    const int exit_code = collbench::measure(program_, run);  // the driver
    report_.complete();  // every row is in: the one place any report is marked complete
    return exit_code;
  } catch (const UsageError& e) {
    return fail(ExitCode::kUsage, e.what(), printer);  // raised identically on every rank
  } catch (const std::exception& e) {
    // A peer that died makes this rank's next call fail (Gloo sees its connections close): the
    // watchdog then names it and ends the job with exit 4, as when the call had hung.
    if (watchdog) watchdog->await_verdict();
    // Possibly this rank alone: keep what was measured, say what happened, end the whole job.
    const auto* error = dynamic_cast<const Error*>(&e);
    const int code = static_cast<int>(error ? error->code() : ExitCode::kRuntimeError);
    print_line(stderr, name_ + ": error on rank " + std::to_string(world.rank()) + " (" + world.host() + "): " + e.what());
    report_.record_error(e.what());
    world.abort(code);
  }
  return static_cast<int>(ExitCode::kRuntimeError);  // not reached: World::abort never returns
}

void Shell::end_start_up_timeout(int rank, const std::string& host, const std::string& step) {
  const std::string line = formatted("timeout: no progress for %g s in ", program_.flags->timeout_seconds) + step +
                           " (connecting the ranks, agreeing on options and connecting heartbeats, seen by rank " +
                           std::to_string(rank) + " on " + host + "): another rank stopped answering; ending the job with exit 4";
  report_.record_error(line);
  print_line(stderr, name_ + ": " + line);
  std::_Exit(static_cast<int>(ExitCode::kTimeout));
}

void Shell::end_interrupted(const std::string& what) {
  // Rank 0 ending the job on -T waits for the other ranks to leave with exit 4; a launcher that
  // ends the step as soon as they do (srun -K) then signals rank 0, whose exit must stay the
  // timeout's 4, as its report's error does.
  const bool timed_out = report_.recorded_error().rfind("timeout: ", 0) == 0;
  report_.record_error(what);
  print_line(stderr, name_ + ": " + what + (timed_out ? " while ending the job on its timeout (exit 4)" : ""));
  std::_Exit(static_cast<int>(timed_out ? ExitCode::kTimeout : ExitCode::kRuntimeError));
}

// The run from the command line to its exit code; every object of it is gone when it returns
// (the report written, MPI finalized, the watcher threads joined).
int run_to_exit_code(const std::string& program_name, int argc, char** argv, const ProgramParser& parse) {
  const std::vector<std::string> args(argv, argv + argc);
  // Flags are checked before MPI starts, so a typo fails at once: printed by one rank under an MPI
  // launcher, by every rank without one (each is alone with its terminal or log).
  const EnvironmentLookup environment = [](const char* name) -> const char* { return std::getenv(name); };
  const bool printer = launcher_rank() == 0 || !started_by_mpi_launcher(environment);
  ProgramSpec program;
  try {
    program = parse(std::vector<std::string>(args.begin() + 1, args.end()));
  } catch (const UsageError& e) {
    if (printer) std::fprintf(stderr, "%s: error: %s\n", program_name.c_str(), printable(e.what()).c_str());
    return static_cast<int>(ExitCode::kUsage);
  }
  if (program.flags->show_help) {
    if (printer) std::fputs(program.help().c_str(), stdout);
    return 0;
  }
  if (program.flags->show_version) {
    if (printer) {
      std::printf("collbench %s (%s)\n%s\n", collbench_version().c_str(), program.build_features().c_str(),
                  collbench_source_line().c_str());
    }
    return 0;
  }
  Shell shell(program_name, program, args);
  return shell.run(&argc, &argv);
}

}  // namespace

int run_program(const std::string& program_name, int argc, char** argv, const ProgramParser& parse) {
  const int exit_code = run_to_exit_code(program_name, argc, argv, parse);
  // Nothing of ours is left to end; what a return from main would still run is the libraries'
  // exit handlers (CUDA's, NCCL's, Gloo's, OpenMP's, Open MPI's), some with threads of their own,
  // while the launcher may already be ending the job because another rank left with the same exit
  // code (issue 64: `mpirun -np 2 all_reduce_perf -b 0 -e 0` ended once with 139 instead of 2;
  // results/reliability/exit_path_stress.sh). None of them has work of ours to finish, so the exit
  // code is given here, the same on every path and every rank.
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(exit_code);
}

}  // namespace collbench
