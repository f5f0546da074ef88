// Running another program from an argument vector: no shell, so no quoting or injection issues.
#pragma once

#include <signal.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace collbench::summarize {

// Holds SIGINT and SIGTERM back from the default action (ending this process at once) while it
// lives, so a program that runs others can pass them on and record what happened instead of
// leaving its children running without a parent. Restores the previous mask when it ends.
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
  // A signal that arrived (and is consumed), waiting at most `wait_ms` for one.
  std::optional<int> take(int wait_ms = 0);

 private:
  sigset_t signals_;
  sigset_t previous_;
};

struct ProcessOutcome {
  bool started = false;  // false when the program could not be executed (not found, not executable)
  std::string start_error;
  int exit_code = -1;    // when it exited normally
  int signal = 0;        // when a signal ended it
  bool timed_out = false;
  int interrupted_by = 0;  // SIGINT or SIGTERM sent to us and passed on to the program
  bool ok() const { return started && signal == 0 && !timed_out && !interrupted_by && exit_code == 0; }
  std::string describe() const;  // "exit 3", "killed by signal 9", "timed out after ...", ...
};

struct ProcessSpec {
  std::vector<std::string> argv;  // argv[0] is searched in PATH
  std::vector<std::pair<std::string, std::string>> environment_overrides;  // set on top of ours
  std::string output_path;        // stdout and stderr go here; empty: inherit ours
  double timeout_s = 0;           // 0: wait forever
  // When set, the program runs in its own process group; SIGINT/SIGTERM sent to us go to that whole
  // group (mpirun and its ranks), and the outcome says it was interrupted.
  InterruptGuard* interrupts = nullptr;
};

ProcessOutcome run_process(const ProcessSpec& spec);

}  // namespace collbench::summarize
