// Running another program from an argument vector: no shell, so no quoting or injection issues.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace collbench::summarize {

struct ProcessOutcome {
  bool started = false;  // false when the program could not be executed (not found, not executable)
  std::string start_error;
  int exit_code = -1;    // when it exited normally
  int signal = 0;        // when a signal ended it
  bool timed_out = false;
  bool ok() const { return started && signal == 0 && !timed_out && exit_code == 0; }
  std::string describe() const;  // "exit 3", "killed by signal 9", "timed out after ...", ...
};

struct ProcessSpec {
  std::vector<std::string> argv;  // argv[0] is searched in PATH
  std::vector<std::pair<std::string, std::string>> environment_overrides;  // set on top of ours
  std::string output_path;        // stdout and stderr go here; empty: inherit ours
  double timeout_s = 0;           // 0: wait forever
};

ProcessOutcome run_process(const ProcessSpec& spec);

}  // namespace collbench::summarize
