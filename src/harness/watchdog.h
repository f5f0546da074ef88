// A per-process watchdog: when the runner makes no progress for the timeout, it reports where the
// run was stuck and ends the process with exit 4, so a hung job ends instead of hanging forever.
//
// It knows only this process. What other ranks are doing is the business of the tick handler
// (src/app/job_watchdog.h shares progress between ranks over a side channel from this thread).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace collbench {

class Watchdog {
 public:
  // Gets the description of the stuck step; it must end the process.
  using TimeoutHandler = std::function<void(const std::string& stuck_step)>;
  // Called about ten times a second from the watchdog thread with this process's progress count and
  // the step now running; it may end the process itself (another rank said the job is over).
  using TickHandler = std::function<void(std::uint64_t progress, const std::string& step)>;

  Watchdog(double timeout_seconds, TimeoutHandler on_timeout, TickHandler on_tick = {});
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // Names the step now running (cheap enough for once per row).
  void enter(std::string step);
  // Records progress (cheap enough for once per iteration: one atomic increment). Every rank runs
  // the same sweep, so equal counts on two ranks mean they reached the same point.
  void progress() { progress_.fetch_add(1, std::memory_order_relaxed); }
  std::uint64_t progress_count() const { return progress_.load(std::memory_order_relaxed); }

  static constexpr int kTickMilliseconds = 100;

 private:
  void watch();

  double timeout_seconds_;
  TimeoutHandler on_timeout_;
  TickHandler on_tick_;
  std::atomic<std::uint64_t> progress_{0};
  std::mutex mutex_;
  std::condition_variable stop_signal_;
  bool stopping_ = false;
  std::string step_;
  std::thread thread_;
};

}  // namespace collbench
