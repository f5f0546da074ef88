#include "harness/flag_groups.h"

#include <CLI/CLI.hpp>

#include <algorithm>

#include "core/flag_values.h"
#include "core/printable.h"

namespace collbench {

void add_loop_flags(CLI::App& app, RunFlags& flags, const LoopWords& words) {
  const std::string& unit = words.iterations;
  auto* iterations = add_integer(app, "-n,--iters", "timed " + unit + " per row (default " + std::to_string(flags.iterations) + ")",
              flags.iterations, 1, 100000000);
  auto* warmup = add_integer(app, "-w,--warmup_iters,--warmup-iters",
              "untimed warm-up " + unit + " (default " + std::to_string(flags.warmup_iterations) + ")",
              flags.warmup_iterations, 0, 100000000);
  auto* check = add_integer(app, "-c,--check",
              "untimed correctness " + unit + " after timing (default " + std::to_string(flags.check_iterations) +
                  "; 0 = none)",
              flags.check_iterations, 0, 1000000);
  add_flag(app, "--inject-corrupt-output", "testing aid: the last rank corrupts one checked output (expect exit 3)",
           flags.inject_corrupt_output);
  auto* slowdown = add_real(app, "--inject-slowdown", "PCT",
           "testing aid: stretch every timed sample by PCT % with a busy-wait on the host's\n"
           "monotonic clock, added to the sample (GPU-event times too); recorded in the\n"
           "report, which collbench compare then refuses as a baseline (default 0 = off)",
           flags.inject_slowdown_percent, 0, 1000);
  add_integer(app, "--inject-slowdown-rank", "testing aid: apply --inject-slowdown on this rank only, a slow rank\n"
              "that collbench table --summary must flag (default -1 = every rank)",
              flags.inject_slowdown_rank, -1, 1000000);
  record_as(app, iterations, "iterations", flags.iterations);
  record_as(app, warmup, "warmup_iterations", flags.warmup_iterations);
  record_as(app, check, "check_iterations", flags.check_iterations);
  record_as(app, slowdown, "inject_slowdown_percent", flags.inject_slowdown_percent);
}

void add_run_flags(CLI::App& app, RunFlags& flags) {
  record_as(app, add_integer(app, "-N,--run_cycles,--cycles", "repeat the whole sweep N times (default 1)", flags.cycles, 1, 1000000),
            "cycles", flags.cycles);
  auto* timeout = add_real(app, "-T,--timeout", "SECONDS", "give up with exit 4 when a step makes no progress (default 0 = off)",
           flags.timeout_seconds, 0, 1e6);
  record_as(app, timeout, "timeout_s", flags.timeout_seconds);
  auto* bootstrap = add_value(app, "--bootstrap", "MODE",
            "how ranks meet: mpi (mpirun/srun), env (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT; no MPI) or auto "
            "(default: mpi under a launcher, env when RANK/WORLD_SIZE are set)",
            [&flags](const std::string& value, const std::string& flag) {
              if (value == "auto") flags.bootstrap = Bootstrap::kAuto;
              else if (value == "mpi") flags.bootstrap = Bootstrap::kMpi;
              else if (value == "env") flags.bootstrap = Bootstrap::kEnv;
              else throw UsageError(flag + " must be auto, mpi or env, got '" + value + "'");
            });
  auto* rendezvous = add_value(app, "--rendezvous", "file:DIR",
            "with env bootstrap, meet through files in DIR on a shared filesystem instead of the TCP store on "
            "MASTER_ADDR:MASTER_PORT (tcp, the default)",
            [&flags](const std::string& value, const std::string& flag) {
              if (value == "tcp") {
                flags.rendezvous_directory.clear();
              } else if (value.rfind("file:", 0) == 0 && value.size() > 5) {
                flags.rendezvous_directory = value.substr(5);
              } else {
                throw UsageError(flag + " must be tcp or file:DIR, got '" + value + "'");
              }
            });
  not_recorded(app, {bootstrap, rendezvous});  // how the ranks met changes no figure
}

void add_backend_flags(CLI::App& app, BackendFlags& flags, const std::string& backend_help, const std::vector<std::string>& allowed) {
  auto* backend = add_value(app, "--backend", "NAME", backend_help, [&flags, allowed](const std::string& value, const std::string& flag) {
    if (value.empty()) throw UsageError(flag + " expects a backend name");
    if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), value) == allowed.end()) {
      throw UsageError("backend '" + value + "' for " + flag + ": this program runs on " + joined(allowed, " or "));
    }
    flags.backend = value;
  });
  auto* interface = add_text(app, "--gloo-iface", "NAME", "network interface for Gloo's TCP transport (default: the one routing to rank 0)", flags.gloo_iface);
  not_recorded(app, {backend, interface});  // context.backend names the backend that ran
}

void add_seed_flag(CLI::App& app, RunFlags& flags) {
  add_integer(app, "--seed", "seed of the input values (default 1)", flags.seed, 0, 1LL << 40);
}

void add_report_flags(CLI::App& app, RunFlags& flags) {
  auto* report = add_text(app, "-J,--report,--output_json,--output_file", "PATH", "write a JSON report (never replaces an existing file)",
                          flags.report_path);
  auto* overwrite = add_flag(app, "--overwrite", "allow -J to replace an existing file", flags.overwrite_report);
  record_as(app, add_flag(app, "--samples", "keep every per-iteration time in the report", flags.keep_samples), "keep_samples",
            flags.keep_samples);
  auto* tag = add_value(app, "--tag", "KEY=VALUE", "label copied into the report (repeatable)", [&flags](const std::string& value, const std::string& flag) {
    auto [key, tag_value] = parse_tag(value, flag);
    flags.tags[key] = std::move(tag_value);
  });
  not_recorded(app, {report, overwrite, tag});  // where the report went; the tags are context.tags
}

void add_help_flags(CLI::App& app, RunFlags& flags) {
  not_recorded(app, {add_flag(app, "-h,--help", "this text", flags.show_help),
                     add_flag(app, "--version", "version and build features", flags.show_version)});
}

void parse_flags(CommandLine& command_line, const std::vector<std::string>& args, RunFlags& flags) {
  command_line.parse(args);
  flags.given.clear();
  for (const CLI::Option* option : command_line.app().get_options()) {
    if (option->count() == 0) continue;
    std::vector<std::string> values = option->results();
    if (values.empty()) values.push_back("");  // a switch: given is all there is
    flags.given.emplace_back(option->get_name(), std::move(values));
  }
}

}  // namespace collbench
