// pt2pt_perf's iterations and their schedule, without a network: the transfers of every mode and
// role (OSU's), and, through the real measurement loop with a recording world, that latency, bw
// and bibw are timed per iteration after one barrier with none between iterations, and mbw_mr
// behind a barrier each, on a host backend (host clock marks) and a device one (its own marks).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "harness/measurement_loop.h"
#include "workloads/pt2pt/pair_schedule.h"

namespace collbench::pt2pt {
namespace {

using Direction = Transfer::Direction;
using Log = std::vector<std::string>;

HostBuffer send_buffer(64), recv_buffer(64), ack_buffer(8);
const PairBuffers kBuffers{&send_buffer, &recv_buffer, &ack_buffer};

std::string describe(const std::vector<std::vector<Transfer>>& steps) {
  std::string text;
  for (const auto& step : steps) {
    text += "[";
    for (const Transfer& t : step) {
      const char* buffer = t.buffer == &send_buffer ? "s" : t.buffer == &recv_buffer ? "r" : "a";
      text += std::string(t.direction == Direction::kSend ? "S" : "R") + std::to_string(t.peer) + buffer + std::to_string(t.bytes) + " ";
    }
    text += "]";
  }
  return text;
}

TEST(Pt2ptSchedule, PartsFollowThePairs) {
  const std::vector<LinkPair> pairs{{0, 2}, {1, 3}};
  EXPECT_EQ(part_of(1, pairs).role, Role::kInitiator);
  EXPECT_EQ(part_of(1, pairs).peer, 3);
  EXPECT_EQ(part_of(2, pairs).role, Role::kResponder);
  EXPECT_EQ(part_of(2, pairs).peer, 0);
  EXPECT_EQ(part_of(4, pairs).role, Role::kIdle);
}

TEST(Pt2ptSchedule, LatencyIsAPingPong) {
  EXPECT_EQ(describe(iteration_steps(Mode::kLatency, {Role::kInitiator, 1}, 64, 8, kBuffers)), "[S1s8 ][R1r8 ]");
  EXPECT_EQ(describe(iteration_steps(Mode::kLatency, {Role::kResponder, 0}, 64, 8, kBuffers)), "[R0r8 ][S0s8 ]");
  EXPECT_TRUE(iteration_steps(Mode::kLatency, {}, 64, 8, kBuffers).empty());
}

TEST(Pt2ptSchedule, BandwidthIsAWindowThenAnAcknowledgement) {
  EXPECT_EQ(describe(iteration_steps(Mode::kBandwidth, {Role::kInitiator, 1}, 3, 16, kBuffers)), "[S1s16 S1s16 S1s16 ][R1a4 ]");
  EXPECT_EQ(describe(iteration_steps(Mode::kBandwidth, {Role::kResponder, 0}, 3, 16, kBuffers)), "[R0r16 R0r16 R0r16 ][S0a4 ]");
  // mbw_mr: the same with osu_mbw_mr's one-byte acknowledgement.
  EXPECT_EQ(describe(iteration_steps(Mode::kMultiPair, {Role::kInitiator, 2}, 2, 16, kBuffers)), "[S2s16 S2s16 ][R2a1 ]");
}

TEST(Pt2ptSchedule, BidirectionalPostsTheWindowBothWaysAtOnce) {
  EXPECT_EQ(describe(iteration_steps(Mode::kBidirectional, {Role::kInitiator, 1}, 2, 4, kBuffers)), "[R1r4 R1r4 S1s4 S1s4 ]");
  EXPECT_EQ(describe(iteration_steps(Mode::kBidirectional, {Role::kResponder, 0}, 2, 4, kBuffers)), "[R0r4 R0r4 S0s4 S0s4 ]");
}

TEST(Pt2ptSchedule, WhoReceivesData) {
  const std::vector<LinkPair> pair{{0, 1}};
  EXPECT_TRUE(receives_data(Mode::kLatency, 0, pair));
  EXPECT_TRUE(receives_data(Mode::kBidirectional, 0, pair));
  EXPECT_FALSE(receives_data(Mode::kBandwidth, 0, pair));  // only the acknowledgement
  EXPECT_TRUE(receives_data(Mode::kBandwidth, 1, pair));
  EXPECT_FALSE(receives_data(Mode::kLatency, 2, pair));
}

TEST(Pt2ptSchedule, AFanRootHasEveryPeerAndTheOthersOne) {
  const std::vector<LinkPair> fan_in{{0, 2}, {1, 2}, {3, 2}};
  const Part root = part_of(2, fan_in);
  EXPECT_EQ(root.role, Role::kResponder);
  EXPECT_EQ(root.fan_peers, (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(part_of(3, fan_in).role, Role::kInitiator);
  EXPECT_EQ(part_of(3, fan_in).peer, 2);
  EXPECT_TRUE(part_of(3, fan_in).fan_peers.empty());
  EXPECT_EQ(part_of(4, fan_in).role, Role::kIdle);
  // The root's clock is the row's, and only the root (or a fan-out leaf) receives data.
  EXPECT_TRUE(times_the_row(Mode::kFanIn, 2, fan_in));
  EXPECT_FALSE(times_the_row(Mode::kFanIn, 0, fan_in));
  EXPECT_TRUE(times_the_row(Mode::kFanOut, 2, {{2, 0}, {2, 1}}));
  EXPECT_FALSE(times_the_row(Mode::kFanOut, 0, {{2, 0}, {2, 1}}));
  EXPECT_TRUE(times_the_row(Mode::kBandwidth, 0, {{0, 1}}));
  EXPECT_TRUE(receives_data(Mode::kFanIn, 2, fan_in));
  EXPECT_FALSE(receives_data(Mode::kFanIn, 0, fan_in));
  EXPECT_TRUE(receives_data(Mode::kFanOut, 1, {{2, 0}, {2, 1}}));
  EXPECT_FALSE(receives_data(Mode::kFanOut, 2, {{2, 0}, {2, 1}}));
}

TEST(Pt2ptSchedule, AFanIsTheWindowToEveryPeerThenAOneByteAcknowledgementEach) {
  Part root{Role::kInitiator, 1, {1, 3}};  // fan-out from this rank to ranks 1 and 3
  EXPECT_EQ(describe(iteration_steps(Mode::kFanOut, root, 2, 16, kBuffers)), "[S1s16 S3s16 S1s16 S3s16 ][R1a1 R3a1 ]");
  EXPECT_EQ(describe(iteration_steps(Mode::kFanOut, {Role::kResponder, 0}, 2, 16, kBuffers)), "[R0r16 R0r16 ][S0a1 ]");
  EXPECT_EQ(describe(iteration_steps(Mode::kFanIn, {Role::kInitiator, 2}, 2, 16, kBuffers)), "[S2s16 S2s16 ][R2a1 ]");
  // A fan-in root: each sender's window into its own slice, the acknowledgements at offsets 0, 1.
  PairBuffers sliced = kBuffers;
  sliced.recv_slice = 32;
  const auto steps = iteration_steps(Mode::kFanIn, {Role::kResponder, 0, {0, 1}}, 2, 16, sliced);
  EXPECT_EQ(describe(steps), "[R0r16 R1r16 R0r16 R1r16 ][S0a1 S1a1 ]");
  std::vector<std::size_t> data_offsets, ack_offsets;
  for (const Transfer& t : steps[0]) data_offsets.push_back(t.offset_bytes);
  EXPECT_EQ(data_offsets, (std::vector<std::size_t>{0, 32, 0, 32}));
  const auto root_out = iteration_steps(Mode::kFanOut, root, 1, 16, kBuffers);
  for (const Transfer& t : root_out[1]) ack_offsets.push_back(t.offset_bytes);
  EXPECT_EQ(ack_offsets, (std::vector<std::size_t>{0, 1}));  // K acknowledgements never share a byte
}

class RecordingWorld final : public World {
 public:
  explicit RecordingWorld(Log& log) : log_(log) {}
  int rank() const override { return 0; }
  int size() const override { return 2; }
  int local_rank() const override { return 0; }
  std::string host() const override { return "test-host"; }
  void barrier() override { log_.push_back("barrier"); }
  void combine(std::vector<double>&, Combine) override {}
  std::int64_t sum(std::int64_t value) override { return value; }
  std::vector<std::string> gather_strings(const std::string& mine) override { return {mine}; }
  std::string broadcast_string(const std::string& text) override { return text; }
  [[noreturn]] void abort(int) override { std::abort(); }
  std::string library_version() const override { return "none"; }
  ControlPlane control_plane() const override { return ControlPlane::kMpi; }

 private:
  Log& log_;
};

class RecordingClock final : public LoopClock {
 public:
  double now_us() override { return now_ += 10; }

 private:
  double now_ = 0;
};

// The backend's operation: a host one (OSU's barrier schedule, no marks) or a device one (marks).
class RecordingInner final : public TimedOperation {
 public:
  RecordingInner(Log& log, bool device) : log_(log), device_(device) {}
  void issue(int iteration) override { log_.push_back("issue " + std::to_string(iteration)); }
  void wait() override { log_.push_back("wait"); }
  bool can_mark() const override { return device_; }
  void prepare_marks(int) override {}
  void mark() override { log_.push_back("device mark"); }
  std::vector<double> elapsed_between_marks_us() override { return {2.0, 4.0, 6.0}; }

 private:
  Log& log_;
  bool device_;
};

LoopSettings settings(bool marks) {
  LoopSettings loop;
  loop.warmup_iterations = 1;
  loop.iterations = 3;
  loop.per_iteration_marks = marks;
  return loop;
}

TEST(Pt2ptSchedule, OsuBatchOnAHostBackendHasOneBarrierAndAHostSamplePerIteration) {
  Log log;
  RecordingWorld world(log);
  RecordingClock clock;
  PairOperation operation(std::make_unique<RecordingInner>(log, false), TimingSchedule::kBatch);
  const LoopResult result = time_iterations(world, settings(true), operation, nullptr, "latency", nullptr, clock);
  EXPECT_EQ(log, (Log{"issue 0", "wait", "barrier", "issue 0", "issue 1", "issue 2", "wait"}));
  ASSERT_EQ(result.mine_us.size(), 3u);  // one sample per ping-pong, from the host clock
  for (double sample : result.mine_us) EXPECT_GE(sample, 0.0);
}

TEST(Pt2ptSchedule, OsuBatchOnADeviceUsesItsMarks) {
  Log log;
  RecordingWorld world(log);
  RecordingClock clock;
  PairOperation operation(std::make_unique<RecordingInner>(log, true), TimingSchedule::kBatch);
  const LoopResult result = time_iterations(world, settings(true), operation, nullptr, "latency", nullptr, clock);
  EXPECT_EQ(std::count(log.begin(), log.end(), "device mark"), 4);
  EXPECT_EQ(std::count(log.begin(), log.end(), "barrier"), 1);
  EXPECT_EQ(result.mine_us, (std::vector<double>{2.0, 4.0, 6.0}));
}

TEST(Pt2ptSchedule, MultiPairHasABarrierBeforeEachIteration) {
  Log log;
  RecordingWorld world(log);
  RecordingClock clock;
  PairOperation operation(std::make_unique<RecordingInner>(log, false), TimingSchedule::kBarrierEachIteration);
  const LoopResult result = time_iterations(world, settings(false), operation, nullptr, "mbw_mr", nullptr, clock);
  EXPECT_EQ(log, (Log{"barrier", "issue 0", "wait", "barrier", "issue 0", "wait", "barrier", "issue 1", "wait", "barrier", "issue 2",
                      "wait"}));
  EXPECT_EQ(result.mine_us, (std::vector<double>{10.0, 10.0, 10.0}));  // clock pairs 10 us apart
}

}  // namespace
}  // namespace collbench::pt2pt
