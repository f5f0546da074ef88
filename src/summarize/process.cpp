#include "summarize/process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <map>
#include <thread>

extern char** environ;

namespace collbench::summarize {

std::string ProcessOutcome::describe() const {
  if (!started) return "could not start: " + start_error;
  if (timed_out) return "timed out (killed)";
  if (signal) return "killed by signal " + std::to_string(signal);
  return "exit " + std::to_string(exit_code);
}

ProcessOutcome run_process(const ProcessSpec& spec) {
  ProcessOutcome outcome;
  std::map<std::string, std::string> environment;
  for (char** entry = environ; entry && *entry; ++entry) {
    const std::string text(*entry);
    const auto equals = text.find('=');
    if (equals != std::string::npos) environment[text.substr(0, equals)] = text.substr(equals + 1);
  }
  for (const auto& [name, value] : spec.environment_overrides) environment[name] = value;
  std::vector<std::string> environment_text;
  for (const auto& [name, value] : environment) environment_text.push_back(name + "=" + value);
  std::vector<char*> envp, argv;
  for (auto& text : environment_text) envp.push_back(text.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = spec.argv;
  for (auto& arg : argv_copy) argv.push_back(arg.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!spec.output_path.empty()) {
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, spec.output_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  }
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  pid_t pid = 0;
  const int spawn_error = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawn_error != 0) {
    outcome.start_error = spec.argv[0] + ": " + std::strerror(spawn_error);
    return outcome;
  }
  outcome.started = true;

  int status = 0;
  const auto start = std::chrono::steady_clock::now();
  bool terminated = false;
  while (true) {
    const pid_t done = waitpid(pid, &status, spec.timeout_s > 0 ? WNOHANG : 0);
    if (done == pid) break;
    if (done < 0) {
      outcome.start_error = std::strerror(errno);
      outcome.exit_code = -1;
      return outcome;
    }
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed > spec.timeout_s && !terminated) {
      // SIGTERM first: mpirun forwards it to its ranks and cleans up; SIGKILL if it does not end.
      kill(pid, SIGTERM);
      terminated = true;
      outcome.timed_out = true;
    } else if (terminated && elapsed > spec.timeout_s + 10) {
      kill(pid, SIGKILL);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  return outcome;
}

}  // namespace collbench::summarize
