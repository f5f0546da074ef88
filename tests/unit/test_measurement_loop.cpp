// The measurement loop's schedules, proven without a GPU: a fake clock, world and device record
// the order of clock reads, barriers, issues, waits, marks and graph steps, and the tests assert
// that nothing waits for the device inside a timed batch (nccl-tests' BenchTime) and that CPU
// iterations are timed one at a time behind a barrier (OSU).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/error.h"
#include "harness/measurement_loop.h"

namespace collbench {
namespace {

using Log = std::vector<std::string>;

// A world of two ranks as seen from rank 0: the other rank's samples are always `peer_factor`
// times this rank's, so every estimator over ranks has a closed form.
class RecordingWorld final : public World {
 public:
  RecordingWorld(Log& log, int size, double peer_factor) : log_(log), size_(size), peer_factor_(peer_factor) {}
  int rank() const override { return 0; }
  int size() const override { return size_; }
  int local_rank() const override { return 0; }
  std::string host() const override { return "test-host"; }
  void barrier() override { log_.push_back("barrier"); }
  void combine(std::vector<double>& values, Combine how) override {
    if (size_ == 1) return;
    for (double& value : values) {
      const double peer = value * peer_factor_;
      value = how == Combine::kSum ? value + peer : how == Combine::kMax ? std::max(value, peer) : std::min(value, peer);
    }
  }
  std::int64_t sum(std::int64_t value) override { return value * size_; }
  std::vector<std::string> gather_strings(const std::string& mine) override { return {mine}; }
  std::string broadcast_string(const std::string& from_rank_zero) override { return from_rank_zero; }
  [[noreturn]] void abort(int) override { std::abort(); }
  std::string library_version() const override { return "none"; }
  ControlPlane control_plane() const override { return ControlPlane::kMpi; }

 private:
  Log& log_;
  int size_;
  double peer_factor_;
};

// Every read advances 10 us.
class RecordingClock final : public LoopClock {
 public:
  explicit RecordingClock(Log& log) : log_(log) {}
  double now_us() override {
    log_.push_back("clock");
    now_ += 10;
    return now_;
  }

 private:
  Log& log_;
  double now_ = 0;
};

class RecordingDevice final : public TimedOperation {
 public:
  RecordingDevice(Log& log, TimingSchedule schedule, int calls = 1) : log_(log), schedule_(schedule), calls_(calls) {}
  TimingSchedule schedule() const override { return schedule_; }
  int calls_per_iteration() const override { return calls_; }
  void issue(int iteration) override { log_.push_back("issue " + std::to_string(iteration)); }
  void issue_check() override { log_.push_back("issue check"); }
  void wait() override { log_.push_back("wait"); }
  bool can_mark() const override { return schedule_ == TimingSchedule::kBatch; }
  void prepare_marks(int marks) override { log_.push_back("prepare " + std::to_string(marks) + " marks"); }
  void mark() override {
    log_.push_back("mark");
    ++marks_;
  }
  std::vector<double> elapsed_between_marks_us() override {
    std::vector<double> intervals;
    for (int i = 1; i < marks_; ++i) intervals.push_back(4.0 * i);  // 4, 8, 12, ... device microseconds
    return intervals;
  }
  bool can_capture() const override { return schedule_ == TimingSchedule::kBatch; }
  void begin_capture() override { log_.push_back("begin capture"); }
  void end_capture() override { log_.push_back("end capture"); }
  void replay() override { log_.push_back("replay"); }

 private:
  Log& log_;
  TimingSchedule schedule_;
  int calls_;
  int marks_ = 0;
};

// The entries between the first clock read and the last, for "nothing waits inside" checks.
Log timed_region(const Log& log) {
  const auto first = std::find(log.begin(), log.end(), "clock");
  const auto last = std::find(log.rbegin(), log.rend(), "clock").base();
  return Log(first, last);
}

LoopSettings settings(int warmup, int iterations) {
  LoopSettings loop;
  loop.warmup_iterations = warmup;
  loop.iterations = iterations;
  return loop;
}

TEST(MeasurementLoop, BatchIssuesEveryIterationBeforeTheOneWait) {
  Log log;
  RecordingWorld world(log, 1, 1);
  RecordingClock clock(log);
  RecordingDevice device(log, TimingSchedule::kBatch);
  const LoopResult result = time_iterations(world, settings(2, 3), device, nullptr, "row", nullptr, clock);
  EXPECT_EQ(log, (Log{"issue 0", "issue 1", "wait", "barrier", "clock", "issue 0", "issue 1", "issue 2", "clock", "wait",
                      "clock"}));
  // Clock reads at 10, 20 (issued) and 30 (completed): (30 - 10) / 3 per iteration.
  ASSERT_EQ(result.mine_us.size(), 1u);
  EXPECT_DOUBLE_EQ(result.mine_us[0], 20.0 / 3);
  EXPECT_DOUBLE_EQ(result.issue_us.value_or(-1), 10.0 / 3);
  EXPECT_NE(result.method.find("batch"), std::string::npos);
}

TEST(MeasurementLoop, BatchDividesByTheCallsOfEachIteration) {
  Log log;
  RecordingWorld world(log, 1, 1);
  RecordingClock clock(log);
  RecordingDevice device(log, TimingSchedule::kBatch, 4);  // -m 4
  const LoopResult result = time_iterations(world, settings(0, 5), device, nullptr, "row", nullptr, clock);
  EXPECT_DOUBLE_EQ(result.mine_us.at(0), 20.0 / (5 * 4));
  EXPECT_NE(result.method.find("4 calls per iteration"), std::string::npos);
}

TEST(MeasurementLoop, PerIterationMarksSurroundEachIterationWithoutWaiting) {
  Log log;
  RecordingWorld world(log, 1, 1);
  RecordingClock clock(log);
  RecordingDevice device(log, TimingSchedule::kBatch);
  LoopSettings loop = settings(1, 3);
  loop.per_iteration_marks = true;  // -I 1
  const LoopResult result = time_iterations(world, loop, device, nullptr, "row", nullptr, clock);
  EXPECT_EQ(log, (Log{"issue 0", "wait", "prepare 4 marks", "barrier", "clock", "mark", "issue 0", "mark", "issue 1",
                      "mark", "issue 2", "mark", "clock", "wait", "clock"}));
  EXPECT_EQ(result.mine_us, (std::vector<double>{4, 8, 12}));  // the device's intervals, one per iteration
}

TEST(MeasurementLoop, GraphIsCapturedAfterWarmUpAndReplayedInsideTheTimedRegion) {
  Log log;
  RecordingWorld world(log, 1, 1);
  RecordingClock clock(log);
  RecordingDevice device(log, TimingSchedule::kBatch);
  LoopSettings loop = settings(1, 2);
  loop.graph_launches = 3;  // -G 3
  const LoopResult result = time_iterations(world, loop, device, nullptr, "row", nullptr, clock);
  EXPECT_EQ(log, (Log{"issue 0", "wait", "begin capture", "issue 0", "issue 1", "end capture", "barrier", "clock",
                      "replay", "replay", "replay", "clock", "wait", "clock"}));
  EXPECT_DOUBLE_EQ(result.mine_us.at(0), 20.0 / (2 * 3));  // per call: n iterations x G launches
}

TEST(MeasurementLoop, NothingWaitsOrSynchronizesInsideABatch) {
  for (int graph : {0, 2}) {
    for (bool marks : {false, true}) {
      if (graph > 0 && marks) continue;  // refused combination
      Log log;
      RecordingWorld world(log, 1, 1);
      RecordingClock clock(log);
      RecordingDevice device(log, TimingSchedule::kBatch);
      LoopSettings loop = settings(3, 7);
      loop.graph_launches = graph;
      loop.per_iteration_marks = marks;
      time_iterations(world, loop, device, nullptr, "row", nullptr, clock);
      const Log timed = timed_region(log);
      // Between the start and the issue-time clock read: only issues, marks and replays.
      const auto issued = std::find(timed.begin() + 1, timed.end(), "clock");
      for (auto entry = timed.begin() + 1; entry != issued; ++entry) {
        EXPECT_TRUE(entry->rfind("issue", 0) == 0 || *entry == "mark" || *entry == "replay")
            << *entry << " inside the batch (graph " << graph << ", marks " << marks << ")";
      }
      EXPECT_EQ(std::count(timed.begin(), timed.end(), "wait"), 1);
      EXPECT_EQ(std::count(timed.begin(), timed.end(), "barrier"), 0);
    }
  }
}

TEST(MeasurementLoop, BlockingModesKeepNcclTestsMeanings) {
  {  // -z 1: wait and barrier after each iteration, inside the timed region
    Log log;
    RecordingWorld world(log, 1, 1);
    RecordingClock clock(log);
    RecordingDevice device(log, TimingSchedule::kBatch);
    LoopSettings loop = settings(0, 2);
    loop.blocking = 1;
    time_iterations(world, loop, device, nullptr, "row", nullptr, clock);
    EXPECT_EQ(timed_region(log), (Log{"clock", "issue 0", "wait", "barrier", "issue 1", "wait", "barrier", "clock", "wait",
                                      "clock"}));
  }
  {  // -z 3: each iteration timed alone, the barrier outside (OSU's schedule)
    Log log;
    RecordingWorld world(log, 1, 1);
    RecordingClock clock(log);
    RecordingDevice device(log, TimingSchedule::kBatch);
    LoopSettings loop = settings(0, 2);
    loop.blocking = 3;
    const LoopResult result = time_iterations(world, loop, device, nullptr, "row", nullptr, clock);
    EXPECT_EQ(log, (Log{"barrier", "clock", "issue 0", "wait", "clock", "barrier", "clock", "issue 1", "wait", "clock"}));
    EXPECT_EQ(result.mine_us.size(), 2u);
    EXPECT_FALSE(result.issue_us.has_value());
  }
}

TEST(MeasurementLoop, HostScheduleTimesEachIterationBehindABarrier) {
  Log log;
  RecordingWorld world(log, 1, 1);
  RecordingClock clock(log);
  RecordingDevice device(log, TimingSchedule::kBarrierEachIteration);
  const LoopResult result = time_iterations(world, settings(1, 2), device, nullptr, "row", nullptr, clock);
  EXPECT_EQ(log, (Log{"barrier", "issue 0", "wait", "barrier", "clock", "issue 0", "wait", "clock", "barrier", "clock",
                      "issue 1", "wait", "clock"}));
  EXPECT_EQ(result.mine_us, (std::vector<double>{10, 10}));
  EXPECT_NE(result.method.find("OSU"), std::string::npos);
}

// Gloo's case: an operation with a barrier of its own starts every iteration, warm-up included,
// through it and never through the control plane's (under mpirun, MPI's spinning barrier stalled
// Gloo's I/O thread); the method line names it. Checks still meet on the control plane.
TEST(MeasurementLoop, AnOperationsOwnBarrierReplacesTheControlPlanesBeforeEachIteration) {
  Log log;
  RecordingWorld world(log, 1, 1);
  RecordingClock clock(log);
  FunctionOperation gloo_like(TimingSchedule::kBarrierEachIteration, [&](int i) { log.push_back("issue " + std::to_string(i)); });
  gloo_like.with_barrier([&](World&) { log.push_back("own barrier"); }, "the library's, on the measured group");
  RowCheck check;
  check.prepare = [](int) {};
  check.count_wrong = [](int) -> std::int64_t { return 0; };
  LoopSettings loop = settings(1, 2);
  loop.check_iterations = 1;
  const LoopResult result = time_iterations(world, loop, gloo_like, nullptr, "row", &check, clock);
  EXPECT_EQ(log, (Log{"own barrier", "issue 0", "own barrier", "clock", "issue 0", "clock", "own barrier", "clock",
                      "issue 1", "clock", "barrier", "issue 0"}));
  EXPECT_NE(result.method.find("the barrier is the library's, on the measured group"), std::string::npos);

  // Without one, the control plane's barrier, and the method line says nothing of it.
  Log plain_log;
  RecordingWorld plain_world(plain_log, 1, 1);
  RecordingClock plain_clock(plain_log);
  FunctionOperation plain(TimingSchedule::kBarrierEachIteration, [](int) {});
  const LoopResult plain_result = time_iterations(plain_world, settings(0, 1), plain, nullptr, "row", nullptr, plain_clock);
  EXPECT_EQ(plain_log, (Log{"barrier", "clock", "clock"}));
  EXPECT_EQ(plain_result.method.find("the barrier is"), std::string::npos);
}

TEST(MeasurementLoop, DeviceFeaturesAHostOperationLacksAreRefused) {
  Log log;
  RecordingWorld world(log, 1, 1);
  RecordingClock clock(log);
  // A batch device without marks or capture: -I and -G are usage errors, not silently ignored.
  FunctionOperation plain(TimingSchedule::kBatch, [](int) {});
  LoopSettings marks = settings(0, 2);
  marks.per_iteration_marks = true;
  EXPECT_THROW(time_iterations(world, marks, plain, nullptr, "row", nullptr, clock), UsageError);
  LoopSettings graph = settings(0, 2);
  graph.graph_launches = 1;
  EXPECT_THROW(time_iterations(world, graph, plain, nullptr, "row", nullptr, clock), UsageError);
}

TEST(MeasurementLoop, DefaultEstimatorIsTheMeanOverRanksAndTheViewsKeepMaxAndMin) {
  Log log;
  RecordingWorld world(log, 2, 3.0);  // the other rank always takes 3x as long
  RecordingClock clock(log);
  RecordingDevice device(log, TimingSchedule::kBarrierEachIteration);
  const LoopSettings loop = settings(0, 4);
  ASSERT_EQ(loop.aggregation, TimeAggregation::kMean);
  const LoopResult result = time_iterations(world, loop, device, nullptr, "row", nullptr, clock);
  EXPECT_DOUBLE_EQ(result.combined.mean, 20);  // (10 + 30) / 2
  EXPECT_DOUBLE_EQ(result.views.mean_us, 20);
  EXPECT_DOUBLE_EQ(result.views.max_us, 30);  // what -a 3 prints
  EXPECT_DOUBLE_EQ(result.views.min_us, 10);
  LoopSettings slowest = loop;
  slowest.aggregation = TimeAggregation::kMax;
  EXPECT_DOUBLE_EQ(time_iterations(world, slowest, device, nullptr, "row", nullptr, clock).combined.mean, 30);
}

TEST(MeasurementLoop, ChecksRunAfterTimingThroughTheSameDeviceAndGraph) {
  Log log;
  RecordingWorld world(log, 2, 1);
  RecordingClock clock(log);
  RecordingDevice device(log, TimingSchedule::kBatch);
  LoopSettings loop = settings(0, 1);
  loop.graph_launches = 1;
  loop.check_iterations = 2;
  RowCheck check;
  check.prepare = [&](int c) { log.push_back("prepare check " + std::to_string(c)); };
  check.count_wrong = [&](int c) {
    log.push_back("compare " + std::to_string(c));
    return std::int64_t{c};  // check 1 finds one wrong element on this rank
  };
  const LoopResult result = time_iterations(world, loop, device, nullptr, "row", &check, clock);
  const Log tail(std::find(log.begin(), log.end(), "prepare check 0"), log.end());
  EXPECT_EQ(tail, (Log{"prepare check 0", "barrier", "begin capture", "issue check", "end capture", "replay", "wait",
                       "compare 0", "prepare check 1", "barrier", "begin capture", "issue check", "end capture", "replay",
                       "wait", "compare 1"}));
  EXPECT_EQ(result.wrong.value_or(-1), 2);  // summed over the two ranks
  loop.check_iterations = 0;
  EXPECT_FALSE(time_iterations(world, loop, device, nullptr, "row", &check, clock).wrong.has_value());
}

}  // namespace
}  // namespace collbench
