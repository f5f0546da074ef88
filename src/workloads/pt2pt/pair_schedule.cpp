#include "workloads/pt2pt/pair_schedule.h"

#include <algorithm>

namespace collbench::pt2pt {

Part part_of(int rank, const std::vector<LinkPair>& pairs) {
  Part part;
  for (const LinkPair& pair : pairs) {
    if (pair.src != rank && pair.dst != rank) continue;
    part.role = pair.src == rank ? Role::kInitiator : Role::kResponder;
    part.fan_peers.push_back(pair.src == rank ? pair.dst : pair.src);
  }
  if (!part.fan_peers.empty()) part.peer = part.fan_peers.front();
  if (part.fan_peers.size() == 1) part.fan_peers.clear();  // one peer: no fan root
  return part;
}

namespace {

// A fan's iteration from one end: the window to or from every peer, then the acknowledgements.
std::vector<std::vector<Transfer>> fan_steps(const Part& part, int window, std::size_t bytes, const PairBuffers& buffers) {
  using Direction = Transfer::Direction;
  const std::vector<int> peers = part.fan_peers.empty() ? std::vector<int>{part.peer} : part.fan_peers;
  const bool sends_data = part.role == Role::kInitiator;
  std::vector<Transfer> data, acks;
  for (int message = 0; message < window; ++message) {
    for (std::size_t k = 0; k < peers.size(); ++k) {
      if (sends_data) data.push_back({Direction::kSend, peers[k], buffers.send, 0, bytes});
      else data.push_back({Direction::kRecv, peers[k], buffers.recv, k * buffers.recv_slice, bytes});
    }
  }
  for (std::size_t k = 0; k < peers.size(); ++k) {
    if (sends_data) acks.push_back({Direction::kRecv, peers[k], buffers.ack, k, kMultiPairAckBytes});
    else acks.push_back({Direction::kSend, peers[k], buffers.ack, 0, kMultiPairAckBytes});
  }
  return {data, acks};
}

}  // namespace

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
    case Mode::kFanIn:
    case Mode::kFanOut:
      return fan_steps(part, window, bytes, buffers);
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

bool times_the_row(Mode mode, int rank, const std::vector<LinkPair>& pairs) {
  // Every link of a fan has the root at the same end: fan-in's receiver, fan-out's sender.
  if (is_fan(mode)) return !pairs.empty() && rank == (mode == Mode::kFanIn ? pairs.front().dst : pairs.front().src);
  return std::any_of(pairs.begin(), pairs.end(), [rank](const LinkPair& pair) { return pair.src == rank; });
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
