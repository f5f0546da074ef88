// The flag groups every collbench program composes, each declared once: the measurement loop's
// (-n -w -c, the testing aids), the run's (-N -T --bootstrap --rendezvous), --seed, the report's
// (-J --overwrite --samples --tag) and help (-h --version). A flag has one range and one meaning
// in every program; only its default may differ (ddp_step_perf times 10 steps, not 20), and
// --help shows the program's own default. Programs add their own flags (sizes, types, backends)
// on the same command-line layer (core/command_line.h).
//
// Pure: no MPI, no world; the option parsers of every workload link it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/command_line.h"

namespace collbench {

// How the ranks of a run find each other (--bootstrap); harness/launcher_env.h decides for kAuto.
enum class Bootstrap { kAuto, kMpi, kEnv };

// What every program's options hold; each program's options derive from it.
struct RunFlags {
  // The loop group (harness/measurement_loop.h).
  int iterations = 20;
  int warmup_iterations = 5;
  int check_iterations = 1;  // untimed correctness iterations after timing
  // Testing aids. --inject-slowdown PCT stretches every timed sample by PCT %, so that a CI gate
  // can be shown to catch a known slowdown; --inject-corrupt-output makes the last rank corrupt
  // one checked output, so that a test can show the check catches it (exit 3).
  double inject_slowdown_percent = 0;
  // --inject-slowdown-rank R: only rank R stretches its samples, a slow rank that the summary's
  // health line must name (-1: every rank).
  int inject_slowdown_rank = -1;
  bool inject_corrupt_output = false;
  // The run group.
  int cycles = 1;
  double timeout_seconds = 0;  // 0: no watchdog
  std::uint64_t seed = 1;      // --seed, where inputs are seeded
  Bootstrap bootstrap = Bootstrap::kAuto;
  std::string rendezvous_directory;  // --rendezvous file:DIR (empty: the TCP store on MASTER_ADDR:MASTER_PORT)
  // The report group.
  std::string report_path;  // empty: no JSON report
  bool overwrite_report = false;
  bool keep_samples = false;
  std::map<std::string, std::string> tags;
  // Help.
  bool show_help = false;
  bool show_version = false;
  // Every flag the command line gave, by its display name, with its values as given, in the order
  // the flags were declared: the options identity the ranks agree on (harness/agreement.h) is made
  // from it, so no flag can be left out of the agreement by hand.
  std::vector<std::pair<std::string, std::vector<std::string>>> given;
};

// The backend group, for the programs that run on a communication backend.
struct BackendFlags {
  std::string backend;     // --backend; empty: the program's default for this build and launch
  std::string gloo_iface;  // --gloo-iface; empty: the interface that routes to rank 0
};

// What a program calls what one timed iteration does ("iterations", "steps").
struct LoopWords {
  std::string iterations = "iterations";
};

// -n/--iters, -w/--warmup_iters, -c/--check, --inject-slowdown and --inject-corrupt-output.
void add_loop_flags(CLI::App& app, RunFlags& flags, const LoopWords& words = {});
// -N/--run_cycles, -T/--timeout, --bootstrap and --rendezvous.
void add_run_flags(CLI::App& app, RunFlags& flags);
// --backend (`backend_help` names the program's backends and its default; `allowed`, when not
// empty, the only names it takes, else the run checks the name against the built backends) and
// --gloo-iface.
void add_backend_flags(CLI::App& app, BackendFlags& flags, const std::string& backend_help, const std::vector<std::string>& allowed = {});
// --seed, for the programs whose inputs it decides.
void add_seed_flag(CLI::App& app, RunFlags& flags);
// -J/--report (and nccl-tests' --output_file), --overwrite, --samples and the repeatable --tag KEY=VALUE.
void add_report_flags(CLI::App& app, RunFlags& flags);
// -h/--help and --version.
void add_help_flags(CLI::App& app, RunFlags& flags);

// Parses args into the flags the command line's declarations write, then records what was given.
void parse_flags(CommandLine& command_line, const std::vector<std::string>& args, RunFlags& flags);

// A program's flags are declared once, by `declare(app, options)`, for both of these.
// Parses args into `options` (their defaults) and returns them as parsed.
template <typename Options, typename Declare>
Options parse_declared(const std::vector<std::string>& args, Options options, Declare declare) {
  CommandLine command_line("", "");  // no help text is printed from here
  declare(command_line.app(), options);
  parse_flags(command_line, args, options);
  return options;
}
// context.options (core/command_line.h: what each flag records): `options` as the run understood
// them, read through the same declarations that parsed them.
template <typename Options, typename Declare>
nlohmann::json recorded_options(Options options, Declare declare) {
  CommandLine command_line("", "");
  declare(command_line.app(), options);
  return command_line.recorded_options();
}
// --help: the usage line's tail, the description and the flags, with `options` as their defaults.
template <typename Options, typename Declare>
std::string declared_help(const std::string& usage, const std::string& description, Options options, Declare declare) {
  CommandLine command_line(usage, description);
  declare(command_line.app(), options);
  return command_line.help();
}

}  // namespace collbench
