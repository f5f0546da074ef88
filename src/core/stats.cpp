#include "core/stats.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <stdexcept>

namespace collbench {

double quantile_of_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) throw std::invalid_argument("quantile of no samples");
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto lower = static_cast<std::size_t>(std::floor(position));
  const std::size_t upper = std::min(lower + 1, sorted.size() - 1);
  const double weight = position - static_cast<double>(lower);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * weight;
}

double median_of(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("median needs at least one value");
  std::sort(values.begin(), values.end());
  const std::size_t middle = values.size() / 2;
  // Halves first: the sum of two values near the largest double would overflow.
  return values.size() % 2 ? values[middle] : values[middle - 1] / 2 + values[middle] / 2;
}

double median_of_upper_half(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("median needs at least one value");
  std::sort(values.begin(), values.end());
  values.erase(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2));
  return median_of(std::move(values));
}

TimeStats summarize_samples(std::vector<double> samples_us) {
  if (samples_us.empty()) throw std::invalid_argument("statistics of no samples");
  std::sort(samples_us.begin(), samples_us.end());
  TimeStats stats;
  const double n = static_cast<double>(samples_us.size());
  stats.min = samples_us.front();
  stats.max = samples_us.back();
  stats.mean = std::accumulate(samples_us.begin(), samples_us.end(), 0.0) / n;
  stats.p10 = quantile_of_sorted(samples_us, 0.10);
  stats.p50 = quantile_of_sorted(samples_us, 0.50);
  stats.p95 = quantile_of_sorted(samples_us, 0.95);
  stats.p99 = quantile_of_sorted(samples_us, 0.99);
  if (samples_us.size() > 1) {
    double squares = 0;
    for (double s : samples_us) squares += (s - stats.mean) * (s - stats.mean);
    stats.stdev = std::sqrt(squares / (n - 1));
  }
  return stats;
}

std::string_view to_string(TimeAggregation aggregation) {
  constexpr std::string_view kNames[] = {"rank0", "mean", "min", "max"};  // in TimeAggregation's order
  return kNames[static_cast<std::size_t>(aggregation)];
}

}  // namespace collbench
