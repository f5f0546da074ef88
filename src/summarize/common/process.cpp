#include "summarize/common/process.h"

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

InterruptGuard::InterruptGuard() {
  sigemptyset(&signals_);
  sigaddset(&signals_, SIGINT);
  sigaddset(&signals_, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals_, &previous_);
}

InterruptGuard::~InterruptGuard() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }

std::optional<int> InterruptGuard::take(int wait_ms) {
  const timespec wait{wait_ms / 1000, static_cast<long>(wait_ms % 1000) * 1000000L};
  const int signal_number = sigtimedwait(&signals_, nullptr, &wait);
  if (signal_number > 0) return signal_number;
  return std::nullopt;
}

std::string ProcessOutcome::describe() const {
  if (!started) return "could not start: " + start_error;
  if (interrupted_by) return std::string("interrupted by ") + (interrupted_by == SIGINT ? "SIGINT" : "SIGTERM");
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
  // The program starts with the default signal mask and actions, whatever ours are; in its own
  // process group when we pass interrupts on, so one kill reaches mpirun and every rank it started.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t no_signals, interrupt_signals;
  sigemptyset(&no_signals);
  sigemptyset(&interrupt_signals);
  sigaddset(&interrupt_signals, SIGINT);
  sigaddset(&interrupt_signals, SIGTERM);
  posix_spawnattr_setsigmask(&attributes, &no_signals);
  posix_spawnattr_setsigdefault(&attributes, &interrupt_signals);
  short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  if (spec.interrupts) {
    posix_spawnattr_setpgroup(&attributes, 0);
    flags |= POSIX_SPAWN_SETPGROUP;
  }
  posix_spawnattr_setflags(&attributes, flags);
  pid_t pid = 0;
  const int spawn_error = posix_spawnp(&pid, argv[0], &actions, &attributes, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (spawn_error != 0) {
    outcome.start_error = spec.argv[0] + ": " + std::strerror(spawn_error);
    return outcome;
  }
  outcome.started = true;

  int status = 0;
  const auto start = std::chrono::steady_clock::now();
  const pid_t target = spec.interrupts ? -pid : pid;  // the whole process group when it has its own
  std::optional<std::chrono::steady_clock::time_point> stop_sent;
  auto stop = [&](int signal_number) {
    kill(target, signal_number);
    if (!stop_sent) stop_sent = std::chrono::steady_clock::now();
  };
  while (true) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0) {
      outcome.start_error = std::strerror(errno);
      outcome.exit_code = -1;
      return outcome;
    }
    const auto now = std::chrono::steady_clock::now();
    const double elapsed = std::chrono::duration<double>(now - start).count();
    if (spec.timeout_s > 0 && elapsed > spec.timeout_s && !stop_sent) {
      // SIGTERM first: mpirun forwards it to its ranks and cleans up; SIGKILL if it does not end.
      outcome.timed_out = true;
      stop(SIGTERM);
    } else if (stop_sent && std::chrono::duration<double>(now - *stop_sent).count() > 10) {
      kill(target, SIGKILL);
    }
    if (spec.interrupts) {
      if (const auto signal_number = spec.interrupts->take(20)) {
        outcome.interrupted_by = *signal_number;
        stop(*signal_number);
      }
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  return outcome;
}

}  // namespace collbench::summarize
