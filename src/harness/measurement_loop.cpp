#include "harness/measurement_loop.h"

#include <algorithm>
#include <chrono>

#include "harness/watchdog.h"

namespace collbench {

std::vector<double> combine_across_ranks(World& world, std::vector<double> samples_us, TimeAggregation aggregation) {
  switch (aggregation) {
    case TimeAggregation::kMax: world.combine(samples_us, Combine::kMax); break;
    case TimeAggregation::kMin: world.combine(samples_us, Combine::kMin); break;
    case TimeAggregation::kMean:
      world.combine(samples_us, Combine::kSum);
      for (double& sample : samples_us) sample /= world.size();
      break;
    case TimeAggregation::kRankZero:
      if (world.rank() != 0) std::fill(samples_us.begin(), samples_us.end(), 0.0);
      world.combine(samples_us, Combine::kSum);
      break;
  }
  return samples_us;
}

double stretch_sample_us(double sample_us, double percent) {
  if (!(percent > 0) || !(sample_us > 0)) return sample_us;
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto target = std::chrono::duration<double, std::micro>(sample_us * percent / 100);
  auto now = start;
  while (now - start < target) now = Clock::now();
  return sample_us + std::chrono::duration<double, std::micro>(now - start).count();
}

LoopResult time_iterations(World& world, const LoopSettings& settings, const TimedOperation& operation,
                           Watchdog* watchdog, const std::string& step) {
  if (watchdog) watchdog->enter(step);
  for (int i = 0; i < settings.warmup_iterations; ++i) {
    world.barrier();
    operation.run_untimed(i);
    if (watchdog) watchdog->progress();
  }
  LoopResult result;
  result.mine_us.resize(static_cast<std::size_t>(settings.iterations));
  for (int i = 0; i < settings.iterations; ++i) {
    world.barrier();  // outside the timed region, so ranks start each iteration together
    result.mine_us[static_cast<std::size_t>(i)] = stretch_sample_us(operation.run_timed_us(i), settings.inject_slowdown_percent);
    if (watchdog) watchdog->progress();
  }
  result.combined_us = combine_across_ranks(world, result.mine_us, settings.aggregation);
  result.mine = summarize_samples(result.mine_us);
  result.combined = summarize_samples(result.combined_us);
  return result;
}

}  // namespace collbench
