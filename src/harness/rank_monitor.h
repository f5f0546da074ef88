// The watchdog's side channel between ranks: who is alive, and how far each rank has got.
//
// Why not MPI: a rank that is stopped or dead can hang or abort the MPI library, and a watchdog
// thread calling MPI would need MPI_THREAD_MULTIPLE, which slows every small message. So the
// ranks form a star of plain TCP connections around rank 0 (addresses agreed through the World once,
// at start), and the watchdog threads exchange 24-byte heartbeats on it about ten times a second.
// A stopped rank goes silent; a dead rank's connection closes; a hung rank keeps sending the same
// progress count. Nothing here touches the benchmark's own traffic or threads.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/world.h"

namespace collbench {

class RankMonitor {
 public:
  using Clock = std::chrono::steady_clock;

  // A rank that kept the others waiting, and why we think so.
  struct Straggler {
    int rank;
    std::string reason;  // "no heartbeat for 6.1 s (stopped or frozen)", "died", "behind: ..."
  };

  // Collective: every rank calls it. Returns nullptr on every rank (and `problem` says why on rank
  // 0) when any rank could not join, so the job runs with per-rank watchdogs only.
  static std::unique_ptr<RankMonitor> connect(World& world, double silence_seconds, std::string* problem);
  ~RankMonitor();
  RankMonitor(const RankMonitor&) = delete;
  RankMonitor& operator=(const RankMonitor&) = delete;

  // From the watchdog thread only (the class is not thread-safe: one thread uses it after connect).
  // Sends this rank's heartbeat and reads what arrived.
  void exchange(std::uint64_t my_progress);

  bool is_root() const { return rank_ == 0; }
  // Root: ranks that closed their connection without saying goodbye (they died). Others: {0} if
  // rank 0 did.
  std::vector<int> dead_ranks() const;
  // Root: whether another rank's watchdog fired and asked for a verdict.
  bool timeout_reported() const { return timeout_reported_; }
  // Others: whether rank 0 ended the job.
  bool stop_received() const { return stop_received_; }
  // Others: whether rank 0 answered within the silence limit.
  bool root_responsive() const;

  // Root: the ranks that did not arrive where the furthest rank is: silent, dead or (when the
  // counts have had time to settle, as after a timeout) behind.
  std::vector<Straggler> stragglers(std::uint64_t my_progress, bool include_behind = true) const;
  // Others: rank 0 as a straggler, when it is one.
  std::vector<Straggler> root_as_straggler() const;

  // Others: asks rank 0 for a verdict after this rank's own watchdog fired.
  void report_timeout(std::uint64_t my_progress);
  // Root: tells every rank to end with exit 4, then waits (at most `grace`) until they have.
  void stop_everyone(std::chrono::milliseconds grace);
  // Others, when leaving on their own timeout verdict: rank 0 must not count this as a death.
  void announce_leaving();
  // On a normal end: a closed connection after goodbye is not a death.
  void say_goodbye();

 private:
  struct Peer;
  RankMonitor(int rank, int size, double silence_seconds);
  void send_to(Peer& peer, std::uint32_t kind, std::uint64_t progress);
  void receive_from(Peer& peer);

  int rank_;
  double silence_seconds_;
  std::uint64_t token_ = 0;
  std::vector<Peer> peers_;  // root: one per other rank (index = rank); others: rank 0 only
  bool timeout_reported_ = false;
  bool stop_received_ = false;
  bool goodbye_sent_ = false;
};

}  // namespace collbench
