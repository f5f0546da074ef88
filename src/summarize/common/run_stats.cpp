#include "summarize/common/run_stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <utility>

#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>

#include "core/stats.h"

namespace collbench::summarize {
namespace {

double welch_degrees_of_freedom(double base_variance_of_mean, double new_variance_of_mean, std::size_t base_runs, std::size_t new_runs) {
  const double total = base_variance_of_mean + new_variance_of_mean;
  const double denominator = base_variance_of_mean * base_variance_of_mean / static_cast<double>(base_runs - 1) +
                             new_variance_of_mean * new_variance_of_mean / static_cast<double>(new_runs - 1);
  // Both spreads zero: no uncertainty left, and any df gives a zero-width interval.
  if (denominator <= 0) return static_cast<double>(base_runs + new_runs - 2);
  return total * total / denominator;
}

// The number of subsets of {1..n} with each rank sum 0..n(n+1)/2: T+'s null distribution times 2^n.
// Doubles hold these counts exactly up to n = 25 (at most 2^25).
std::vector<double> signed_rank_counts(std::size_t n) {
  const std::size_t most = n * (n + 1) / 2;
  std::vector<double> counts(most + 1, 0.0);
  counts[0] = 1;
  for (std::size_t rank = 1; rank <= n; ++rank) {
    for (std::size_t sum = rank * (rank + 1) / 2; sum >= rank; --sum) counts[sum] += counts[sum - rank];
  }
  return counts;
}

// P(T+ <= t) by the normal approximation: mean n(n+1)/4, variance n(n+1)(2n+1)/24 less the ties'
// share, a continuity correction of 1/2.
double signed_rank_normal_cdf(double t, double n, double tie_correction) {
  const double mean = n * (n + 1) / 4;
  const double variance = n * (n + 1) * (2 * n + 1) / 24 - tie_correction / 48;
  if (!(variance > 0)) return t >= mean ? 1 : 0;
  return boost::math::cdf(boost::math::normal(), (t + 0.5 - mean) / std::sqrt(variance));
}

// The signed-rank test's standard error of the Hodges-Lehmann estimate, from the pairs' spread:
// that of a mean over pairs * 3 / pi pairs (the test's efficiency against t for normal spreads).
double hodges_lehmann_standard_error(double pair_spread, double pairs) {
  return pair_spread * std::sqrt(std::acos(-1.0) / (3 * pairs));
}

}  // namespace

double student_t_upper_tail(double t, double degrees_of_freedom) {
  if (!(degrees_of_freedom > 0) || std::isnan(t)) throw std::invalid_argument("student_t_upper_tail: out of range");
  if (std::isinf(t)) return t > 0 ? 0 : 1;
  return boost::math::cdf(boost::math::complement(boost::math::students_t(degrees_of_freedom), t));
}

double signed_rank_cdf(double t, std::size_t n) {
  if (!(t >= 0)) return 0;  // NaN too: it must not reach the cast to an index below
  const double most = static_cast<double>(n * (n + 1) / 2);
  if (t >= most) return 1;
  if (n > kExactSignedRankPairs) return signed_rank_normal_cdf(std::floor(t), static_cast<double>(n), 0);
  const auto counts = signed_rank_counts(n);
  double below = 0;
  for (std::size_t sum = 0; sum <= static_cast<std::size_t>(t); ++sum) below += counts[sum];
  return std::ldexp(below, -static_cast<int>(n));
}

double signed_rank_upper_p(const std::vector<double>& values) {
  std::vector<double> magnitudes;
  std::vector<bool> positive;
  for (double value : values) {
    if (value == 0) continue;  // Wilcoxon's rule: a zero says nothing about the direction
    magnitudes.push_back(std::fabs(value));
    positive.push_back(value > 0);
  }
  const std::size_t n = magnitudes.size();
  if (n == 0) return 1;
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return magnitudes[a] < magnitudes[b]; });
  // Ranks 1..n, tied magnitudes sharing their mean rank; sum of (t^3 - t) over the tie groups.
  double positive_ranks = 0, tie_correction = 0;
  for (std::size_t first = 0; first < n;) {
    std::size_t last = first;
    while (last + 1 < n && magnitudes[order[last + 1]] == magnitudes[order[first]]) ++last;
    const double tied = static_cast<double>(last - first + 1);
    const double mean_rank = static_cast<double>(first + last) / 2 + 1;
    for (std::size_t i = first; i <= last; ++i) positive_ranks += positive[order[i]] ? mean_rank : 0;
    tie_correction += tied * tied * tied - tied;
    first = last + 1;
  }
  const double pairs = static_cast<double>(n);
  const double most = pairs * (pairs + 1) / 2;
  // P(T+ >= observed) = P(T+ <= most - observed), T+ being symmetric about most / 2.
  if (tie_correction == 0 && n <= kExactSignedRankPairs) return signed_rank_cdf(most - positive_ranks, n);
  return 1 - signed_rank_normal_cdf(positive_ranks - 1, pairs, tie_correction);
}

std::size_t fewest_pairs_for(double one_sided_error) {
  std::size_t pairs = 1;
  while (std::ldexp(1.0, -static_cast<int>(pairs)) > one_sided_error && pairs < 64) ++pairs;
  return pairs;
}

double p_value_above(const LogRatioInterval& interval, double threshold) {
  if (interval.paired) {
    std::vector<double> beyond;
    for (double ratio : interval.log_ratios) beyond.push_back(ratio - threshold);
    return signed_rank_upper_p(beyond);
  }
  if (interval.standard_error <= 0) return interval.estimate > threshold ? 0 : 1;
  return student_t_upper_tail((interval.estimate - threshold) / interval.standard_error, interval.degrees_of_freedom);
}

LogRatioInterval mirrored(const LogRatioInterval& interval) {
  LogRatioInterval out = interval;
  out.estimate = -interval.estimate;
  out.low = -interval.high;
  out.high = -interval.low;
  for (double& ratio : out.log_ratios) ratio = -ratio;
  return out;
}

std::vector<bool> holm_rejections(const std::vector<double>& p_values, double alpha) {
  std::vector<std::size_t> order(p_values.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p_values[a] < p_values[b]; });
  std::vector<bool> rejected(p_values.size(), false);
  for (std::size_t rank = 0; rank < order.size(); ++rank) {
    if (p_values[order[rank]] >= alpha / static_cast<double>(order.size() - rank)) break;
    rejected[order[rank]] = true;
  }
  return rejected;
}

double student_t_quantile(double probability, double degrees_of_freedom) {
  if (!(probability > 0 && probability < 1) || !(degrees_of_freedom > 0)) throw std::invalid_argument("student_t_quantile: out of range");
  return boost::math::quantile(boost::math::students_t(degrees_of_freedom), probability);
}

double normal_quantile(double probability) { return boost::math::quantile(boost::math::normal(), probability); }

double mean_of(const std::vector<double>& values) {
  return values.empty() ? 0 : std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

double geometric_mean(const std::vector<double>& values) {
  if (values.empty()) return 0;
  double log_sum = 0;
  for (double value : values) log_sum += std::log(value);
  return std::exp(log_sum / static_cast<double>(values.size()));
}

double standard_deviation(const std::vector<double>& values) {
  if (values.size() < 2) return 0;
  const double mean = mean_of(values);
  double sum = 0;
  for (double value : values) sum += (value - mean) * (value - mean);
  return std::sqrt(sum / static_cast<double>(values.size() - 1));
}

LogRatioInterval log_ratio_interval(const std::vector<double>& base_logs, const std::vector<double>& new_logs, double one_sided_error) {
  if (base_logs.size() < 2 || new_logs.size() < 2) throw std::invalid_argument("log_ratio_interval: needs 2 values a side");
  LogRatioInterval interval;
  interval.estimate = mean_of(new_logs) - mean_of(base_logs);
  interval.base_spread = standard_deviation(base_logs);
  interval.new_spread = standard_deviation(new_logs);
  const double half = half_width_with(interval, base_logs.size(), new_logs.size(), 0, one_sided_error);
  const double base_var = interval.base_spread * interval.base_spread / static_cast<double>(base_logs.size());
  const double new_var = interval.new_spread * interval.new_spread / static_cast<double>(new_logs.size());
  interval.degrees_of_freedom = welch_degrees_of_freedom(base_var, new_var, base_logs.size(), new_logs.size());
  interval.standard_error = std::sqrt(base_var + new_var);
  interval.low = interval.estimate - half;
  interval.high = interval.estimate + half;
  return interval;
}

double robust_spread(const std::vector<double>& values) {
  if (values.size() < 2) return 0;
  const double center = median(values);
  std::vector<double> deviations;
  for (double value : values) deviations.push_back(std::fabs(value - center));
  return 1.4826 * median(deviations);  // the MAD scaled to a normal's standard deviation
}

double median(std::vector<double> values) { return values.empty() ? 0 : collbench::median_of(std::move(values)); }

LogRatioInterval paired_log_ratio_interval(const std::vector<double>& log_ratios, double one_sided_error) {
  if (log_ratios.size() < 2) throw std::invalid_argument("paired_log_ratio_interval: needs 2 pairs");
  LogRatioInterval interval;
  interval.paired = true;
  interval.log_ratios = log_ratios;
  const std::size_t n = log_ratios.size();
  std::vector<double> walsh_averages;
  walsh_averages.reserve(n * (n + 1) / 2);
  for (std::size_t i = 0; i < n; ++i) {
    // Halves first, as median: no overflow for ratios near the largest double.
    for (std::size_t j = i; j < n; ++j) walsh_averages.push_back(log_ratios[i] / 2 + log_ratios[j] / 2);
  }
  std::sort(walsh_averages.begin(), walsh_averages.end());
  const std::size_t averages = walsh_averages.size();
  interval.estimate = median(walsh_averages);
  interval.pair_spread = robust_spread(log_ratios);
  interval.base_spread = interval.new_spread = interval.pair_spread / std::sqrt(2.0);
  interval.degrees_of_freedom = static_cast<double>(n - 1);
  // The number of Walsh averages above a shift s is T+ of the ratios less s (Tukey), so the true
  // shift lies below the k-th smallest average with probability P(T+ >= N - k + 1) = P(T+ <= k - 1)
  // for N averages. k is the largest with that probability at most the one-sided error.
  std::size_t k = 0;
  while (k < averages / 2 && signed_rank_cdf(static_cast<double>(k), n) <= one_sided_error) ++k;
  const double infinity = std::numeric_limits<double>::infinity();
  interval.low = k ? walsh_averages[k - 1] : -infinity;
  interval.high = k ? walsh_averages[averages - k] : infinity;
  interval.standard_error = hodges_lehmann_standard_error(interval.pair_spread, static_cast<double>(n));
  return interval;
}

double detectable_change(const LogRatioInterval& interval, std::size_t pairs, double threshold, double one_sided_error) {
  const double infinity = std::numeric_limits<double>::infinity();
  if (pairs < fewest_pairs_for(one_sided_error) || !std::isfinite(interval.standard_error)) return infinity;
  if (!interval.paired) return threshold + (normal_quantile(1 - one_sided_error) + normal_quantile(0.80)) * interval.standard_error;
  // A t test on pairs * 3 / pi pairs has the signed-rank test's power (G*Power's A.R.E. method);
  // the sum of the two quantiles is the usual approximation of the noncentral t.
  const double effective_pairs = static_cast<double>(pairs) * 3 / std::acos(-1.0);
  const double df = std::max(effective_pairs - 1, 1.0);
  const double standard_error = interval.pair_spread / std::sqrt(effective_pairs);
  // Paired SLOWER needs the test off 0 and the estimate at least the threshold, each 80 % of the time.
  return std::max((student_t_quantile(1 - one_sided_error, df) + student_t_quantile(0.80, df)) * standard_error,
                  threshold + student_t_quantile(0.80, df) * standard_error);
}

double half_width_with(const LogRatioInterval& interval, std::size_t base_runs, std::size_t new_runs, std::size_t extra,
                       double one_sided_error) {
  if (interval.paired) {
    const std::size_t pairs = std::min(base_runs, new_runs) + extra;
    // Fewer pairs than the signed-rank test needs to reach the error at all: no finite interval.
    if (pairs < fewest_pairs_for(one_sided_error)) return std::numeric_limits<double>::infinity();
    if (interval.pair_spread <= 0) return 0;
    return normal_quantile(1 - one_sided_error) * hodges_lehmann_standard_error(interval.pair_spread, static_cast<double>(pairs));
  }
  const std::size_t base_n = base_runs + extra, new_n = new_runs + extra;
  const double base_var = interval.base_spread * interval.base_spread / static_cast<double>(base_n);
  const double new_var = interval.new_spread * interval.new_spread / static_cast<double>(new_n);
  if (base_var + new_var <= 0) return 0;
  const double df = welch_degrees_of_freedom(base_var, new_var, base_n, new_n);
  if (!std::isfinite(base_var + new_var) || !(df > 0)) return std::numeric_limits<double>::infinity();
  return student_t_quantile(1 - one_sided_error, df) * std::sqrt(base_var + new_var);
}

}  // namespace collbench::summarize
