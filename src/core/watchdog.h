// A per-process watchdog: when the runner makes no progress for the timeout, it reports where the
// run was stuck and ends the process with exit 4, so a hung job ends instead of hanging forever.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace collbench {

class Watchdog {
 public:
  // `on_timeout` gets the description of the stuck step; it must end the process.
  Watchdog(double timeout_seconds, std::function<void(const std::string& stuck_step)> on_timeout);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // Names the step now running (cheap enough for once per row).
  void enter(std::string step);
  // Records progress (cheap enough for once per iteration: one atomic increment).
  void progress() { progress_.fetch_add(1, std::memory_order_relaxed); }

 private:
  void watch();

  double timeout_seconds_;
  std::function<void(const std::string&)> on_timeout_;
  std::atomic<std::uint64_t> progress_{0};
  std::mutex mutex_;
  std::condition_variable stop_signal_;
  bool stopping_ = false;
  std::string step_;
  std::thread thread_;
};

}  // namespace collbench
