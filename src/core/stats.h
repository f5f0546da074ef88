// Statistics over per-iteration times.
#pragma once

#include <string_view>
#include <vector>

namespace collbench {

// p10 is the figure runs are compared on: interference only adds time, so the low tail shows the
// undisturbed cost (collbench compare --figure).
struct TimeStats {
  double min = 0, p10 = 0, p50 = 0, mean = 0, p95 = 0, p99 = 0, max = 0, stdev = 0;  // microseconds
};

// Percentiles interpolate linearly between order statistics; stdev is the sample (n-1) deviation
// and 0 for a single sample. Requires at least one sample.
TimeStats summarize_samples(std::vector<double> samples_us);

// The q-quantile (0..1) of sorted values, linear interpolation.
double quantile_of_sorted(const std::vector<double>& sorted, double q);

// The median of values in any order (the mean of the middle two for an even count); requires at least one.
double median_of(std::vector<double> values);
// The median of the upper half of values in any order: of the ceil(n/2) largest (for rates, the
// faster half). Up to half of the values may fall away without moving it; requires at least one.
double median_of_upper_half(std::vector<double> values);

// A row's time under each over-ranks estimator (per sample combined over ranks, then the mean over
// samples): -a picks one for the headline, and all three are kept so that a straggler stays visible
// whatever -a printed. Made by the measurement loop, written in every row's time_over_ranks_us.
struct RankTimeViews {
  double mean_us = 0, max_us = 0, min_us = 0;
};

// How per-rank times combine into one time per iteration (nccl-tests' -a).
enum class TimeAggregation { kRankZero = 0, kMean = 1, kMin = 2, kMax = 3 };
std::string_view to_string(TimeAggregation aggregation);

}  // namespace collbench
