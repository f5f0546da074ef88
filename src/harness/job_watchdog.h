// What -T does for the whole job: every rank watches its own progress (core/watchdog.h) and shares
// it with the others over a side channel (app/rank_monitor.h), so that a stalled or dead rank
// ends every surviving rank with exit 4 and one line naming the step and the ranks that did not
// arrive, and rank 0 first records that line in the report's "error" field.
//
// Who speaks: rank 0 judges and prints for the job; the others end quietly when rank 0 says so,
// and speak for themselves only when rank 0 is the rank that is gone.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/rank_monitor.h"
#include "harness/watchdog.h"
#include "core/world.h"

namespace collbench {

class JobWatchdog {
 public:
  // Collective (every rank constructs it at the same point). `record_error` keeps the verdict in
  // the report (harness/report_writer.h) before the process ends.
  JobWatchdog(World& world, double timeout_seconds, std::string program,
              std::function<void(const std::string& error)> record_error);
  ~JobWatchdog();
  JobWatchdog(const JobWatchdog&) = delete;
  JobWatchdog& operator=(const JobWatchdog&) = delete;

  // What the runner reports its progress to.
  Watchdog& progress_watch() { return *watchdog_; }

  // After a call failed on this rank: waits as long as the heartbeats take to show a dead rank,
  // during which the watchdog thread may end the job with exit 4 naming it. Returns when it did
  // not (the failure was this rank's own).
  void await_verdict() const;

 private:
  void on_tick(std::uint64_t progress, const std::string& step);
  [[noreturn]] void on_timeout(const std::string& step);
  [[noreturn]] void end_job(const std::string& what_happened, const std::string& step,
                            const std::vector<RankMonitor::Straggler>& stragglers);

  int rank_;
  std::string where_;  // "rank 1 on host"
  std::vector<std::string> rank_hosts_;  // each rank's host (empty with one rank)
  double timeout_seconds_;
  std::string program_;
  std::function<void(const std::string& error)> record_error_;
  std::unique_ptr<RankMonitor> monitor_;  // null with one rank, or when the side channel failed
  std::unique_ptr<Watchdog> watchdog_;
  // Watchdog-thread state: when the last tick ran, and what a long gap between ticks says (the
  // launcher resumes a stopped rank to kill it; that rank must not then blame the others).
  RankMonitor::Clock::time_point last_tick_ = RankMonitor::Clock::now();
  std::string frozen_note_;
};

// Seconds without a heartbeat after which a rank counts as stopped: short enough to be seen before
// the timeout fires, long enough that a busy, oversubscribed rank's thread is not called dead.
double silence_limit_seconds(double timeout_seconds);

}  // namespace collbench
