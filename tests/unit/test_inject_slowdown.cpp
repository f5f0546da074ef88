// --inject-slowdown: the shared measurement loop stretches every timed sample by the given share.
// These assert a property of the busy-wait (it lasts at least as long as asked), not the speed of
// anything measured.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>

#include "one_rank_world.h"
#include "harness/measurement_loop.h"

namespace collbench {
namespace {

using Clock = std::chrono::steady_clock;

double microseconds_since(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

// A short real operation: spins for about `us` microseconds and returns its time as a workload would.
double spin_operation_us(double us) {
  const auto start = Clock::now();
  while (microseconds_since(start) < us) {
  }
  return microseconds_since(start);
}

using testing::OneRankWorld;

TEST(InjectSlowdown, StretchesASampleByAtLeastTheShareAndTakesThatLong) {
  const auto start = Clock::now();
  const double sample = spin_operation_us(200);
  const double stretched = stretch_sample_us(sample, 50);
  const double wall = microseconds_since(start);
  EXPECT_GE(stretched, 1.5 * sample);
  // The added time was really spent: the whole took at least as long as the stretched sample says.
  EXPECT_GE(wall, stretched);
}

TEST(InjectSlowdown, ZeroLeavesTheSampleAlone) {
  EXPECT_EQ(stretch_sample_us(123.25, 0), 123.25);
  EXPECT_EQ(stretch_sample_us(0, 50), 0);
}

TEST(InjectSlowdown, TheLoopStretchesEveryTimedSampleAndNoUntimedOne) {
  OneRankWorld world;
  int issued = 0;
  FunctionOperation operation(TimingSchedule::kBarrierEachIteration, [&](int) {
    ++issued;
    spin_operation_us(100);
  });
  LoopSettings settings;
  settings.warmup_iterations = 2;
  settings.iterations = 5;
  settings.inject_slowdown_percent = 50;
  const auto start = Clock::now();
  const LoopResult result = time_iterations(world, settings, operation, nullptr, "test");
  const double wall = microseconds_since(start);
  EXPECT_EQ(issued, 2 + 5);  // warm-up and timed iterations
  ASSERT_EQ(result.mine_us.size(), 5u);
  double total = 0;
  for (double sample : result.mine_us) {
    EXPECT_GE(sample, 150);  // each operation takes at least 100 us, and half of it is added
    total += sample;
  }
  EXPECT_GE(wall, total);
  EXPECT_GE(result.combined.min, 150);
}

}  // namespace
}  // namespace collbench
