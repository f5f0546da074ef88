#include "harness/job_watchdog.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "core/error.h"
#include "core/printable.h"

namespace collbench {
namespace {

// "2 (no heartbeat for 4.00 s (stopped or frozen), on node3)": the host says which node to look at
// when the ranks span several.
std::string describe(const std::vector<RankMonitor::Straggler>& stragglers, const std::vector<std::string>& rank_hosts) {
  if (stragglers.empty()) return "none: every rank is alive at the same step (stuck together, in the library?)";
  std::string text;
  for (std::size_t i = 0; i < stragglers.size(); ++i) {
    const auto rank = static_cast<std::size_t>(stragglers[i].rank);
    text += (i ? ", " : "") + std::to_string(stragglers[i].rank) + " (" + stragglers[i].reason +
            (rank < rank_hosts.size() ? ", on " + rank_hosts[rank] : "") + ")";
  }
  return text;
}

}  // namespace

double silence_limit_seconds(double timeout_seconds) { return std::clamp(timeout_seconds / 2, 0.5, 3.0); }

JobWatchdog::JobWatchdog(World& world, double timeout_seconds, std::string program,
                         std::function<void(const std::string& error)> record_error)
    : rank_(world.rank()),
      where_("rank " + std::to_string(world.rank()) + " on " + world.host()),
      timeout_seconds_(timeout_seconds),
      program_(std::move(program)),
      record_error_(std::move(record_error)) {
  if (world.size() > 1) {
    // Every rank's host, so that a timeout line names the node of each rank it names.
    rank_hosts_ = world.gather_strings(world.host());
    std::string problem;
    monitor_ = RankMonitor::connect(world, silence_limit_seconds(timeout_seconds), &problem);
    if (!monitor_ && rank_ == 0) {
      print_line(stderr, program_ + ": warning: -T works per rank only (ranks that hang cannot be named): " + problem);
    }
  }
  watchdog_ = std::make_unique<Watchdog>(
      timeout_seconds, [this](const std::string& step) { on_timeout(step); },
      [this](std::uint64_t progress, const std::string& step) { on_tick(progress, step); });
}

JobWatchdog::~JobWatchdog() {
  watchdog_.reset();  // joins the thread that uses the monitor
  if (monitor_) monitor_->say_goodbye();
}

void JobWatchdog::await_verdict() const {
  if (!monitor_) return;
  // Rank 0 sees a closed heartbeat connection at its next tick and tells the others at once; the
  // silence limit covers a peer that is alive but frozen.
  std::this_thread::sleep_for(std::chrono::duration<double>(silence_limit_seconds(timeout_seconds_) + 1.0));
}

void JobWatchdog::on_tick(std::uint64_t progress, const std::string& step) {
  if (!monitor_) return;
  const auto now = RankMonitor::Clock::now();
  const double gap = std::chrono::duration<double>(now - last_tick_).count();
  last_tick_ = now;
  if (gap >= silence_limit_seconds(timeout_seconds_)) {
    frozen_note_ = formatted("this rank itself was stopped or frozen for %.2f s", gap);
  }
  monitor_->exchange(progress);
  if (monitor_->is_root()) {
    const std::vector<int> dead = monitor_->dead_ranks();
    if (!dead.empty()) {
      // Counts are mid-flight at this moment, so "behind" would be noise: name the dead and silent.
      end_job("rank " + std::to_string(dead.front()) + " died", step, monitor_->stragglers(progress, false));
    }
    if (monitor_->timeout_reported()) end_job(formatted("no progress for %g s", timeout_seconds_), step, monitor_->stragglers(progress));
  } else {
    if (monitor_->stop_received()) std::_Exit(static_cast<int>(ExitCode::kTimeout));  // rank 0 spoke
    if (!monitor_->dead_ranks().empty()) end_job("rank 0 died", step, monitor_->root_as_straggler());
  }
}

void JobWatchdog::on_timeout(const std::string& step) {
  const std::string what = formatted("no progress for %g s", timeout_seconds_);
  if (!monitor_) end_job(what, step, {});
  const std::uint64_t progress = watchdog_->progress_count();
  if (monitor_->is_root()) {
    monitor_->exchange(progress);
    end_job(what, step, monitor_->stragglers(progress));
  }
  // Ask rank 0 for the verdict; it names the ranks for the whole job.
  monitor_->report_timeout(progress);
  const auto deadline = RankMonitor::Clock::now() + std::chrono::seconds(3);
  while (RankMonitor::Clock::now() < deadline && monitor_->root_responsive()) {
    monitor_->exchange(progress);
    if (monitor_->stop_received()) std::_Exit(static_cast<int>(ExitCode::kTimeout));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::vector<RankMonitor::Straggler> stragglers = monitor_->root_as_straggler();
  if (stragglers.empty()) stragglers.push_back({0, "alive but gave no verdict in 3 s"});
  end_job(what, step, stragglers);
}

void JobWatchdog::end_job(const std::string& what_happened, const std::string& step,
                          const std::vector<RankMonitor::Straggler>& stragglers) {
  std::vector<RankMonitor::Straggler> late = stragglers;
  if (!frozen_note_.empty()) late.insert(late.begin(), {rank_, frozen_note_});
  std::string line = what_happened + " in " + step + " (seen by " + where_ + ")";
  if (monitor_ || !late.empty()) line += "; ranks that did not arrive: " + describe(late, rank_hosts_);
  // The report first: once other ranks leave, the launcher may kill this process at any moment.
  if (rank_ == 0) record_error_("timeout: " + line);
  print_line(stderr, program_ + ": timeout: " + line + "; ending the job with exit 4");
  if (monitor_ && monitor_->is_root()) monitor_->stop_everyone(std::chrono::seconds(2));
  if (monitor_ && !monitor_->is_root()) monitor_->announce_leaving();
  std::_Exit(static_cast<int>(ExitCode::kTimeout));
}

}  // namespace collbench
