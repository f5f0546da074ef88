#include "harness/watchdog.h"

#include <chrono>

namespace collbench {

Watchdog::Watchdog(double timeout_seconds, TimeoutHandler on_timeout, TickHandler on_tick)
    : timeout_seconds_(timeout_seconds),
      on_timeout_(std::move(on_timeout)),
      on_tick_(std::move(on_tick)),
      step_("start-up") {
  thread_ = std::thread([this] { watch(); });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  stop_signal_.notify_all();
  thread_.join();
}

void Watchdog::enter(std::string step) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    step_ = std::move(step);
  }
  progress();
}

void Watchdog::watch() {
  using Clock = std::chrono::steady_clock;
  const auto tick = std::chrono::milliseconds(kTickMilliseconds);
  std::uint64_t last_seen = progress_.load();
  auto last_change = Clock::now();
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    stop_signal_.wait_for(lock, tick);
    if (stopping_) break;
    const std::uint64_t now_seen = progress_.load(std::memory_order_relaxed);
    if (on_tick_) {
      // Without the lock: the handler may block on sockets for a moment, and enter() must not wait.
      const std::string step = step_;
      lock.unlock();
      on_tick_(now_seen, step);
      lock.lock();
      if (stopping_) break;
    }
    if (now_seen != last_seen) {
      last_seen = now_seen;
      last_change = Clock::now();
      continue;
    }
    const double stalled = std::chrono::duration<double>(Clock::now() - last_change).count();
    if (stalled >= timeout_seconds_) {
      const std::string step = step_;
      lock.unlock();
      on_timeout_(step);
      return;
    }
  }
}

}  // namespace collbench
