#include "harness/measurement_loop.h"

#include <algorithm>

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
    result.mine_us[static_cast<std::size_t>(i)] = operation.run_timed_us(i);
    if (watchdog) watchdog->progress();
  }
  result.combined_us = combine_across_ranks(world, result.mine_us, settings.aggregation);
  result.mine = summarize_samples(result.mine_us);
  result.combined = summarize_samples(result.combined_us);
  return result;
}

}  // namespace collbench
