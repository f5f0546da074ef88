#include "summarize/run_stats.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace collbench::summarize {
namespace {

// The continued fraction of the regularized incomplete beta function (modified Lentz), which
// converges fast for x < (a + 1) / (a + b + 2).
double beta_continued_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double result = d;
  for (int m = 1; m <= 300; ++m) {
    const double m2 = 2.0 * m;
    double numerator = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
    d = 1 + numerator * d;
    c = 1 + numerator / c;
    if (std::fabs(d) < kTiny) d = kTiny;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    result *= d * c;
    numerator = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
    d = 1 + numerator * d;
    c = 1 + numerator / c;
    if (std::fabs(d) < kTiny) d = kTiny;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double step = d * c;
    result *= step;
    if (std::fabs(step - 1) < 1e-14) break;
  }
  return result;
}

double regularized_incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * beta_continued_fraction(a, b, x) / a;
  return 1 - front * beta_continued_fraction(b, a, 1 - x) / b;
}

double student_t_cdf(double t, double degrees_of_freedom) {
  const double tail = 0.5 * regularized_incomplete_beta(degrees_of_freedom / 2, 0.5, degrees_of_freedom / (degrees_of_freedom + t * t));
  return t >= 0 ? 1 - tail : tail;
}

double welch_degrees_of_freedom(double base_variance_of_mean, double new_variance_of_mean, std::size_t base_runs, std::size_t new_runs) {
  const double total = base_variance_of_mean + new_variance_of_mean;
  const double denominator = base_variance_of_mean * base_variance_of_mean / static_cast<double>(base_runs - 1) +
                             new_variance_of_mean * new_variance_of_mean / static_cast<double>(new_runs - 1);
  // Both spreads zero: no uncertainty left, and any df gives a zero-width interval.
  if (denominator <= 0) return static_cast<double>(base_runs + new_runs - 2);
  return total * total / denominator;
}

}  // namespace

double student_t_upper_tail(double t, double degrees_of_freedom) { return 1 - student_t_cdf(t, degrees_of_freedom); }

double p_value_above(const LogRatioInterval& interval, double threshold) {
  if (interval.standard_error <= 0) return interval.estimate > threshold ? 0 : 1;
  return student_t_upper_tail((interval.estimate - threshold) / interval.standard_error, interval.degrees_of_freedom);
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
  if (probability < 0.5) return -student_t_quantile(1 - probability, degrees_of_freedom);
  double low = 0, high = 1;
  while (student_t_cdf(high, degrees_of_freedom) < probability) high *= 2;
  for (int step = 0; step < 200 && high - low > 1e-12 * high; ++step) {
    const double middle = (low + high) / 2;
    (student_t_cdf(middle, degrees_of_freedom) < probability ? low : high) = middle;
  }
  return (low + high) / 2;
}

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

LogRatioInterval paired_log_ratio_interval(const std::vector<double>& log_ratios, double one_sided_error) {
  if (log_ratios.size() < 2) throw std::invalid_argument("paired_log_ratio_interval: needs 2 pairs");
  LogRatioInterval interval;
  interval.paired = true;
  interval.estimate = mean_of(log_ratios);
  interval.pair_spread = standard_deviation(log_ratios);
  interval.base_spread = interval.new_spread = interval.pair_spread / std::sqrt(2.0);
  interval.degrees_of_freedom = static_cast<double>(log_ratios.size() - 1);
  interval.standard_error = interval.pair_spread / std::sqrt(static_cast<double>(log_ratios.size()));
  const double half = half_width_with(interval, log_ratios.size(), log_ratios.size(), 0, one_sided_error);
  interval.low = interval.estimate - half;
  interval.high = interval.estimate + half;
  return interval;
}

double half_width_with(const LogRatioInterval& interval, std::size_t base_runs, std::size_t new_runs, std::size_t extra,
                       double one_sided_error) {
  if (interval.paired) {
    const std::size_t pairs = std::min(base_runs, new_runs) + extra;
    if (interval.pair_spread <= 0) return 0;
    return student_t_quantile(1 - one_sided_error, static_cast<double>(pairs - 1)) * interval.pair_spread /
           std::sqrt(static_cast<double>(pairs));
  }
  const std::size_t base_n = base_runs + extra, new_n = new_runs + extra;
  const double base_var = interval.base_spread * interval.base_spread / static_cast<double>(base_n);
  const double new_var = interval.new_spread * interval.new_spread / static_cast<double>(new_n);
  if (base_var + new_var <= 0) return 0;
  const double df = welch_degrees_of_freedom(base_var, new_var, base_n, new_n);
  return student_t_quantile(1 - one_sided_error, df) * std::sqrt(base_var + new_var);
}

}  // namespace collbench::summarize
