// Ctrl-C and SIGTERM end a run the way -T does: one line naming the signal, the reason in the
// partial report, exit 1. The signals are blocked in the main thread before MPI or the watchdog
// start their threads (which inherit the block), so only this watcher's sigtimedwait ever takes
// them: no signal handler and no global flag.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <thread>

namespace collbench {

class InterruptWatcher {
 public:
  // Gets "interrupted by SIGINT" or "interrupted by SIGTERM" on the watcher's thread; it must end
  // the process.
  using Handler = std::function<void(const std::string& what)>;

  // Blocks SIGINT and SIGTERM in the calling thread; construct it first, on the main thread.
  explicit InterruptWatcher(Handler on_interrupt);
  // Stops watching and unblocks: a signal still pending then acts as it would have without us.
  ~InterruptWatcher();
  InterruptWatcher(const InterruptWatcher&) = delete;
  InterruptWatcher& operator=(const InterruptWatcher&) = delete;

 private:
  void watch();

  Handler on_interrupt_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace collbench
