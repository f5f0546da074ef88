// collbench ab: two commands run interleaved (A B B A ...), a report each run, compared run by
// run until the verdict is clear. Interleaving spreads slow drift of the machine over both sides
// instead of charging it to whichever side ran second.
#pragma once

#include <cstdio>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "summarize/verdicts/compare.h"
#include "summarize/runs/sweep.h"

namespace collbench::summarize {

struct AbOptions {
  int runs = 3;       // runs a side before the first verdict
  int max_runs = 10;  // runs a side at most, while rows stay UNKNOWN
  int state_reruns = 2;  // a pair whose runs the state probe saw in two machine states runs again, this often at most
  // Empty: the real probe (state_probe.h). Tests give a fake, as a machine state cannot be made on demand.
  std::function<std::optional<double>()> state_probe;
  int world_size = 1;
  std::vector<std::string> launcher;  // as sweep: empty is this machine's mpirun, {"none"} runs directly
  std::string np_flag;
  double timeout_s = 0;
  bool as_root = false;
  std::string out_dir;  // DIR/A and DIR/B receive run-K.json and run-K.log
  std::vector<std::string> command_a, command_b;
  CompareOptions compare;
};

// Splits "CMD_A ::: CMD_B" (the words after --). Throws InputError without exactly one ":::" or
// with an empty side.
void split_ab_commands(const std::vector<std::string>& words, AbOptions& options);

struct AbOutcome {
  CompareResult result;
  Document document;
  int runs_a_side = 0;
  double wall_s = 0;
};

// A run that did not end well, with its exit code (-1 when it did not exit by itself): tune tells
// a benchmark's bad usage (exit 2) from a failure by it.
class RunFailure : public std::runtime_error {
 public:
  RunFailure(const std::string& message, int exit_code, bool interrupted, bool side_a, std::string log_path)
      : std::runtime_error(message), exit_code(exit_code), interrupted(interrupted), side_a(side_a), log_path(std::move(log_path)) {}
  int exit_code;
  bool interrupted;  // SIGINT or SIGTERM: the user stopped it, no run is to blame
  bool side_a;
  std::string log_path;
};

// Throws InputError for bad options or a folder that already holds ab reports; RunFailure when a
// run fails (its log named).
AbOutcome run_ab(const AbOptions& options, std::FILE* progress);

}  // namespace collbench::summarize
