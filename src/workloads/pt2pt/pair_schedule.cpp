#include "workloads/pt2pt/pair_schedule.h"

namespace collbench::pt2pt {

Part part_of(int rank, const std::vector<LinkPair>& pairs) {
  for (const LinkPair& pair : pairs) {
    if (pair.src == rank) return {Role::kInitiator, pair.dst};
    if (pair.dst == rank) return {Role::kResponder, pair.src};
  }
  return {};
}

std::vector<std::vector<Transfer>> iteration_steps(Mode mode, const Part& part, int window, std::size_t bytes,
                                                   const PairBuffers& buffers) {
  using Direction = Transfer::Direction;
  if (part.role == Role::kIdle) return {};
  const bool initiator = part.role == Role::kInitiator;
  const auto many = [&](Direction direction, Buffer* buffer) {
    return std::vector<Transfer>(static_cast<std::size_t>(window), Transfer{direction, part.peer, buffer, 0, bytes});
  };
  const Transfer send{Direction::kSend, part.peer, buffers.send, 0, bytes};
  const Transfer receive{Direction::kRecv, part.peer, buffers.recv, 0, bytes};
  switch (mode) {
    case Mode::kLatency:
      if (initiator) return {{send}, {receive}};
      return {{receive}, {send}};
    case Mode::kBandwidth:
    case Mode::kMultiPair: {
      const std::size_t ack = mode == Mode::kBandwidth ? kAckBytes : kMultiPairAckBytes;
      if (initiator) return {many(Direction::kSend, buffers.send), {{Direction::kRecv, part.peer, buffers.ack, 0, ack}}};
      return {many(Direction::kRecv, buffers.recv), {{Direction::kSend, part.peer, buffers.ack, 0, ack}}};
    }
    case Mode::kBidirectional: {
      // osu_bibw posts the window's receives, then its sends, and completes them all.
      std::vector<Transfer> both = many(Direction::kRecv, buffers.recv);
      const std::vector<Transfer> sends = many(Direction::kSend, buffers.send);
      both.insert(both.end(), sends.begin(), sends.end());
      return {both};
    }
  }
  return {};
}

bool receives_data(Mode mode, int rank, const std::vector<LinkPair>& pairs) {
  for (const LinkPair& pair : pairs) {
    if (pair.dst == rank) return true;
    if (pair.src == rank) return mode == Mode::kLatency || mode == Mode::kBidirectional;
  }
  return false;
}

void PairOperation::prepare_marks(int marks) {
  if (inner_->can_mark()) return inner_->prepare_marks(marks);
  host_marks_.clear();
  host_marks_.reserve(static_cast<std::size_t>(marks));
}

void PairOperation::mark() {
  if (inner_->can_mark()) return inner_->mark();
  host_marks_.push_back(std::chrono::steady_clock::now());
}

std::vector<double> PairOperation::elapsed_between_marks_us() {
  if (inner_->can_mark()) return inner_->elapsed_between_marks_us();
  std::vector<double> intervals;
  for (std::size_t i = 1; i < host_marks_.size(); ++i) {
    intervals.push_back(std::chrono::duration<double, std::micro>(host_marks_[i] - host_marks_[i - 1]).count());
  }
  return intervals;
}

}  // namespace collbench::pt2pt
