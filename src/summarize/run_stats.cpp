#include "summarize/run_stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>

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

}  // namespace

double student_t_upper_tail(double t, double degrees_of_freedom) {
  if (!(degrees_of_freedom > 0) || std::isnan(t)) throw std::invalid_argument("student_t_upper_tail: out of range");
  if (std::isinf(t)) return t > 0 ? 0 : 1;
  return boost::math::cdf(boost::math::complement(boost::math::students_t(degrees_of_freedom), t));
}

double sign_test_upper_p(std::size_t above, std::size_t pairs) {
  if (above == 0) return 1;
  // P(B >= above) for B ~ Binomial(pairs, 1/2): how often as many pairs lie above by chance.
  return boost::math::cdf(boost::math::complement(boost::math::binomial(static_cast<double>(pairs), 0.5), static_cast<double>(above - 1)));
}

std::size_t fewest_pairs_for(double one_sided_error) {
  std::size_t pairs = 1;
  while (std::ldexp(1.0, -static_cast<int>(pairs)) > one_sided_error && pairs < 64) ++pairs;
  return pairs;
}

double p_value_above(const LogRatioInterval& interval, double threshold) {
  if (interval.paired) {
    std::size_t above = 0;
    for (double ratio : interval.log_ratios) above += ratio > threshold ? 1 : 0;
    return sign_test_upper_p(above, interval.log_ratios.size());
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
  double sum = 0;
  for (double value : values) sum += value;
  return values.empty() ? 0 : sum / static_cast<double>(values.size());
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
  const double center = median_value(values);
  std::vector<double> deviations;
  for (double value : values) deviations.push_back(std::fabs(value - center));
  return 1.4826 * median_value(deviations);  // the MAD scaled to a normal's standard deviation
}

double median_value(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t middle = values.size() / 2;
  // Halves first: the sum of two values near the largest double would overflow.
  return values.size() % 2 ? values[middle] : values[middle - 1] / 2 + values[middle] / 2;
}

LogRatioInterval paired_log_ratio_interval(const std::vector<double>& log_ratios, double one_sided_error) {
  if (log_ratios.size() < 2) throw std::invalid_argument("paired_log_ratio_interval: needs 2 pairs");
  LogRatioInterval interval;
  interval.paired = true;
  interval.log_ratios = log_ratios;
  std::vector<double> sorted = log_ratios;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  interval.estimate = median_value(sorted);
  interval.pair_spread = robust_spread(sorted);
  interval.base_spread = interval.new_spread = interval.pair_spread / std::sqrt(2.0);
  interval.degrees_of_freedom = static_cast<double>(n - 1);
  // The sign test's interval: the k-th smallest ratio lies below the median with probability
  // P(Binomial(n, 1/2) >= n - k + 1) = P(Binomial(n, 1/2) <= k - 1); k is the largest order
  // statistic whose chance of lying above the median is at most the one-sided error.
  std::size_t k = 0;
  const boost::math::binomial pairs_below(static_cast<double>(n), 0.5);
  while (k < n / 2 && boost::math::cdf(pairs_below, static_cast<double>(k)) <= one_sided_error) ++k;
  const double infinity = std::numeric_limits<double>::infinity();
  interval.low = k ? sorted[k - 1] : -infinity;
  interval.high = k ? sorted[n - k] : infinity;
  // For the runs-needed estimate: the median's large-sample standard error (efficiency 2/pi).
  interval.standard_error = interval.pair_spread * std::sqrt(std::acos(-1.0) / 2 / static_cast<double>(n));
  return interval;
}

double detectable_change(const LogRatioInterval& interval, std::size_t pairs, double threshold, double one_sided_error) {
  if (pairs < fewest_pairs_for(one_sided_error) || !std::isfinite(interval.standard_error)) return std::numeric_limits<double>::infinity();
  const double standard_error = interval.paired ? interval.pair_spread * std::sqrt(std::acos(-1.0) / 2 / static_cast<double>(pairs))
                                                : interval.standard_error;
  return threshold + (normal_quantile(1 - one_sided_error) + normal_quantile(0.80)) * standard_error;
}

double half_width_with(const LogRatioInterval& interval, std::size_t base_runs, std::size_t new_runs, std::size_t extra,
                       double one_sided_error) {
  if (interval.paired) {
    const std::size_t pairs = std::min(base_runs, new_runs) + extra;
    // Fewer pairs than the sign test needs to reach the error at all: no finite interval.
    if (pairs < fewest_pairs_for(one_sided_error)) return std::numeric_limits<double>::infinity();
    if (interval.pair_spread <= 0) return 0;
    return normal_quantile(1 - one_sided_error) * interval.pair_spread * std::sqrt(std::acos(-1.0) / 2 / static_cast<double>(pairs));
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
