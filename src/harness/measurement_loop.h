// The one measurement loop of every workload (collectives, GEMM, STREAM, copies): warm-up, timed
// iterations with a barrier outside each timed region (OSU's method), per-iteration samples,
// progress for -T, the combination of rank times per iteration (-a) and the statistics.
//
// A workload gives the loop its operation issued and timed its device's way (CPU: a monotonic
// clock; GPU: a CUDA event pair), one iteration at a time. Timing a batch of N iterations between
// one event pair (nccl-tests' method) is a change to time_iterations() alone: the operation would
// then offer a batch, and this loop would divide by N for every workload at once.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/options.h"
#include "core/stats.h"
#include "core/world.h"

namespace collbench {

class Watchdog;

struct TimedOperation {
  std::function<void(int iteration)> run_untimed;     // returns once the iteration is done
  std::function<double(int iteration)> run_timed_us;  // one iteration's time in microseconds
};

struct LoopSettings {
  int warmup_iterations = 0;
  int iterations = 1;
  TimeAggregation aggregation = TimeAggregation::kMax;
  double inject_slowdown_percent = 0;  // --inject-slowdown: see stretch_sample_us
};

struct LoopResult {
  std::vector<double> mine_us;      // this rank's samples
  std::vector<double> combined_us;  // per iteration, combined over ranks as LoopSettings says
  TimeStats mine;
  TimeStats combined;
};

// --inject-slowdown: busy-waits on the monotonic clock for `percent` % of `sample_us` and returns the
// sample plus the wait as measured, so the sample grows by at least that share. The wait follows the
// operation and is measured on the host clock for every device, so GPU-event samples grow alike.
// It spins rather than sleeps: a sleep's wake-up lag would make the injected share vary with load.
double stretch_sample_us(double sample_us, double percent);

// Collective: every rank runs the same loop. `watchdog` (may be null) hears `step` and every iteration.
LoopResult time_iterations(World& world, const LoopSettings& settings, const TimedOperation& operation,
                           Watchdog* watchdog, const std::string& step);

// Per-iteration times combined over ranks (nccl-tests' -a): every rank gets the result.
std::vector<double> combine_across_ranks(World& world, std::vector<double> samples_us, TimeAggregation aggregation);

}  // namespace collbench
