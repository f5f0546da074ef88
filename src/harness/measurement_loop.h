// The one measurement loop of every workload (collectives, GEMM, STREAM, copies, the DDP step):
// warm-up, the timed schedule, the combination of rank times (-a) and its max/min views, the
// statistics, and the correctness checks after timing.
//
// The schedule comes from the operation (core/timed_operation.h):
// - barrier each iteration (OSU; CPU libraries): barrier, clock, one iteration, wait, clock.
// - batch (nccl-tests' BenchTime; GPU queues): warm-up, wait, barrier, clock, n iterations issued
//   back to back, clock (the issue time, nccl-tests' -C), wait, clock; time = elapsed / n. With -I
//   a device mark precedes each iteration and follows the last, so the intervals give per-iteration
//   samples; with -G the n iterations are captured once (after warm-up, before the barrier) and the
//   capture is replayed G times inside the timed region. -z 1|2 wait (and barrier) after each
//   iteration, -z 3 times each iteration alone, as nccl-tests' blocking modes do.
// Every schedule uses the host's monotonic clock, as nccl-tests and OSU do; the clock is passed in
// so that a test without a GPU can record the order of clocks, issues, waits and barriers.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/stats.h"
#include "core/timed_operation.h"
#include "core/world.h"

namespace collbench {

class Watchdog;


class LoopClock {
 public:
  virtual ~LoopClock() = default;
  virtual double now_us() = 0;  // monotonic
};
LoopClock& steady_loop_clock();  // std::chrono::steady_clock; stateless

struct LoopSettings {
  int warmup_iterations = 0;
  int iterations = 1;
  TimeAggregation aggregation = TimeAggregation::kMean;
  int blocking = 0;                  // nccl-tests' -z, for a batch schedule (0..3)
  int graph_launches = 0;            // nccl-tests' -G: replays of the captured batch (0: none)
  bool per_iteration_marks = false;  // nccl-tests' -I
  int check_iterations = 0;          // -c
  double inject_slowdown_percent = 0;  // --inject-slowdown: see stretch_sample_us
};

// A row's correctness check, run after timing: prepare() fills the inputs and poisons the outputs
// (untimed), the loop issues one call and waits, count_wrong() compares this rank's outputs.
struct RowCheck {
  std::function<void(int check)> prepare;
  std::function<std::int64_t(int check)> count_wrong;
};

struct LoopResult {
  std::vector<double> mine_us;      // this rank's samples: per iteration, or one per batch without -I
  std::vector<double> combined_us;  // per sample, combined over ranks as LoopSettings says
  TimeStats mine;
  TimeStats combined;
  RankTimeViews views;  // core/stats.h
  std::optional<double> issue_us;   // batch: host time to issue one call, combined over ranks (-C)
  std::string method;               // how the samples were made, for the report
  std::optional<std::int64_t> wrong;  // summed over ranks; nullopt when no check ran
};

// --inject-slowdown: busy-waits on the monotonic clock for `percent` % of `sample_us` and returns the
// sample plus the wait as measured, so the sample grows by at least that share. It spins rather
// than sleeps: a sleep's wake-up lag would make the injected share vary with load. On a batch
// schedule each sample is a per-call time and grows the same way.
double stretch_sample_us(double sample_us, double percent);

// Collective: every rank runs the same loop. `watchdog` (may be null) hears `step` and progress.
LoopResult time_iterations(World& world, const LoopSettings& settings, TimedOperation& operation, Watchdog* watchdog,
                           const std::string& step, const RowCheck* check = nullptr,
                           LoopClock& clock = steady_loop_clock());

// Collective: `settings.warmup_iterations` untimed iterations of `operation`, made as its timed
// ones would be (a batch issued back to back and one wait, or each after the barrier), with no
// sample, row or check. The driver's warm-up before its first row (harness/driver.h) runs through
// it; `step` is what the watchdog names while it runs.
void warm_up(World& world, const LoopSettings& settings, TimedOperation& operation, Watchdog* watchdog,
             const std::string& step);

// Per-sample times combined over ranks (nccl-tests' -a): every rank gets the result.
std::vector<double> combine_across_ranks(World& world, std::vector<double> samples_us, TimeAggregation aggregation);

}  // namespace collbench
