// What one rank does in one iteration of an OSU point-to-point test, and the operation that times
// it with OSU's schedule on any backend. Apart from the workload so that both are tested as they
// are: the transfers of every mode and role, and the order of barriers, clocks and issues.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <vector>

#include "backends/backend.h"
#include "core/timed_operation.h"
#include "workloads/pt2pt/pt2pt_options.h"

namespace collbench::pt2pt {

// osu_mbw_mr and OSU's fan tests acknowledge each window with one byte, osu_bw with four (kAckBytes).
constexpr std::size_t kMultiPairAckBytes = 1;

enum class Role { kIdle, kInitiator, kResponder };

// One rank's part in a case: its role and its peer; a fan's root has K peers (fan_peers, in the
// pairs' order, `peer` the first). The initiator sends the data, the responder receives it.
struct Part {
  Role role = Role::kIdle;
  int peer = -1;
  std::vector<int> fan_peers;  // a fan root's peers; empty elsewhere
};

// This rank's part among `pairs`: a rank in one pair has one peer; a rank in several is a fan's
// root, the same end of every one of its links.
Part part_of(int rank, const std::vector<LinkPair>& pairs);

// The buffers an iteration uses: every message of a window from one send buffer into one receive
// buffer (OSU's default single buffer), acknowledgements through their own.
struct PairBuffers {
  Buffer* send = nullptr;
  Buffer* recv = nullptr;
  Buffer* ack = nullptr;
  // A fan-in root receives peer k's messages at offset k x recv_slice, so every sender's bytes are
  // checked apart (OSU's one buffer would mix them); 0 elsewhere. The root's acknowledgements
  // land at ack offset k, one byte each.
  std::size_t recv_slice = 0;
};

// The exchanges of one iteration, in order (each posted together and completed before the next):
// latency: send then receive (the responder the other way round); bw and mbw_mr: a window of
// sends, then the acknowledgement (the responder: a window of receives, then it sends the
// acknowledgement); bibw: the window's receives and sends in one exchange; fan-in and fan-out
// (osu_bw_fan_in/out): the window to (from) every peer at once, the peers inner as OSU posts
// them, then a one-byte acknowledgement from (to) each. Idle: none.
std::vector<std::vector<Transfer>> iteration_steps(Mode mode, const Part& part, int window, std::size_t bytes,
                                                   const PairBuffers& buffers);

// Whether `rank` receives data (not only an acknowledgement) among `pairs`.
bool receives_data(Mode mode, int rank, const std::vector<LinkPair>& pairs);

// Whether `rank`'s own samples are the row's time: the first rank of each pair (OSU reports the
// sender's time), or a fan's root (OSU's parent times the fan). Idle ranks and a fan's peers not.
bool times_the_row(Mode mode, int rank, const std::vector<LinkPair>& pairs);

// The row's operation over the backend's: OSU's schedules on every backend. With kBatch the
// measurement loop takes per-iteration samples between marks (the host clock here, or the
// device's events where the backend's operation has them) after one barrier, with none between
// iterations, as osu_latency, osu_bw and osu_bibw time; kBarrierEachIteration is osu_mbw_mr's.
class PairOperation final : public TimedOperation {
 public:
  PairOperation(std::unique_ptr<TimedOperation> inner, TimingSchedule schedule)
      : inner_(std::move(inner)), schedule_(schedule) {}
  TimingSchedule schedule() const override { return schedule_; }
  void issue(int iteration) override { inner_->issue(iteration); }
  void issue_check() override { inner_->issue_check(); }
  void wait() override { inner_->wait(); }
  void start_together(World& world) override { inner_->start_together(world); }
  std::string own_barrier() const override { return inner_->own_barrier(); }
  bool can_mark() const override { return true; }
  void prepare_marks(int marks) override;
  void mark() override;
  std::vector<double> elapsed_between_marks_us() override;
  bool can_capture() const override { return inner_->can_capture(); }
  void begin_capture() override { inner_->begin_capture(); }
  void end_capture() override { inner_->end_capture(); }
  void replay() override { inner_->replay(); }

 private:
  std::unique_ptr<TimedOperation> inner_;
  TimingSchedule schedule_;
  std::vector<std::chrono::steady_clock::time_point> host_marks_;
};

}  // namespace collbench::pt2pt
