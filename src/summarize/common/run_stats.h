// Statistics over run-level figures: one number per run (a row's time in that run), never the
// per-iteration samples, which are correlated within a run and make ordinary drift look certain.
#pragma once

#include <cstddef>
#include <vector>

namespace collbench::summarize {

// The Student t distribution (Boost.Math): P(T <= t) = probability, for 0 < probability < 1 and
// degrees_of_freedom > 0 (fractional, as Welch's approximation gives); std::invalid_argument else.
double student_t_quantile(double probability, double degrees_of_freedom);
// P(T > t).
double student_t_upper_tail(double t, double degrees_of_freedom);
double normal_quantile(double probability);

// The Wilcoxon signed-rank test on values symmetric about 0 under the null hypothesis. T+ is the
// sum of the ranks of |value| over the positive values; zeros are dropped (Wilcoxon's rule) and
// tied magnitudes share their mean rank. Exact null distribution for up to kExactSignedRankPairs
// values without ties, else the normal approximation with the tie correction and a continuity
// correction of 1/2.
inline constexpr std::size_t kExactSignedRankPairs = 25;
// P(T+ >= the observed T+): small when the values lie above 0. 1 when every value is 0.
double signed_rank_upper_p(const std::vector<double>& values);
// P(T+ <= t) for n values without ties: exact up to kExactSignedRankPairs, normal beyond.
double signed_rank_cdf(double t, std::size_t n);
// The fewest values whose signed-rank test can reach `one_sided_error` at all: its least p is
// 2^-n (all values on one side), so 5 for 0.05 and 7 for 0.01 (0.05 with Holm over 5 rows).
std::size_t fewest_pairs_for(double one_sided_error);

// A Welch (unequal-variance) t interval on mean(new logs) - mean(base logs): the log of the ratio
// of the two sides' geometric means. Each bound is one-sided at `one_sided_error`, so the interval
// covers the true ratio with probability 1 - 2 * one_sided_error.
struct LogRatioInterval {
  double estimate = 0;   // mean(new) - mean(base), in log space
  double low = 0, high = 0;
  double base_spread = 0, new_spread = 0;  // sample standard deviations of the logs (about the runs' CV)
  double degrees_of_freedom = 0;
  double standard_error = 0;  // of the estimate
  bool paired = false;      // from pairs of runs made back to back (ab): base_spread = new_spread = pair_spread / sqrt(2)
  double pair_spread = 0;   // the pairs' log ratios' spread: 1.4826 x their median absolute deviation
  std::vector<double> log_ratios;  // paired: the pairs' log ratios, for the signed-rank test
};
// Needs at least 2 values a side.
LogRatioInterval log_ratio_interval(const std::vector<double>& base_logs, const std::vector<double>& new_logs, double one_sided_error);

// Paired runs (A B B A ...): `log_ratios` holds log(new / base) of each pair, which share the
// machine's state, so its drift cancels. The estimate is the Hodges-Lehmann estimate (the median
// of the n(n+1)/2 Walsh averages (r_i + r_j) / 2, i <= j) and the interval the Wilcoxon
// signed-rank test's (order statistics of the Walsh averages, distribution-free for any symmetric
// spread): a pair that straddles a change of the machine's state (2-3x off) enters n of the
// n(n+1)/2 Walsh averages and so moves the estimate and the bounds by a few order positions, not
// by its size (the estimate's breakdown point is 29 %), where it would drag a mean and a t interval.
// Its bounds are infinite until there are enough pairs (fewest_pairs_for). Needs at least 2 pairs.
LogRatioInterval paired_log_ratio_interval(const std::vector<double>& log_ratios, double one_sided_error);

// The same interval seen from the other side (log(base / new)): for the "faster" p-value.
LogRatioInterval mirrored(const LogRatioInterval& interval);

// The interval's half-width with `extra` more runs on each side, assuming the spreads stay as measured.
double half_width_with(const LogRatioInterval& interval, std::size_t base_runs, std::size_t new_runs, std::size_t extra,
                       double one_sided_error);

// The smallest change (log) that `pairs` pairs (runs a side) with the measured spread would find
// SLOWER with 80 % power at `one_sided_error`; infinite with too few pairs.
// Paired (SLOWER: the test off 0 and the estimate at least `threshold`): the signed-rank test is
// about as powerful as a t test on pairs * 3 / pi pairs (its asymptotic relative efficiency for
// normal spreads; G*Power's A.R.E. method), so with se = spread / sqrt(pairs * 3 / pi), df = that - 1,
//   max((t(1 - error) + t(0.80)) * se, threshold + t(0.80) * se).
// Unpaired (SLOWER: the interval beyond `threshold`): threshold + (z(1 - error) + z(0.80)) * the
// Welch standard error.
double detectable_change(const LogRatioInterval& interval, std::size_t pairs, double threshold, double one_sided_error);

// One-sided p-value of "the log ratio is above `threshold`" being false: small when the interval's
// evidence puts the ratio above it. Paired: the signed-rank test on log_ratios - threshold, so
// that p < error exactly when the interval's low end is above the threshold (without ties).
double p_value_above(const LogRatioInterval& interval, double threshold);

// Holm's step-down over a family of p-values: which hypotheses are rejected at family-wise `alpha`.
std::vector<bool> holm_rejections(const std::vector<double>& p_values, double alpha);

double mean_of(const std::vector<double>& values);
double geometric_mean(const std::vector<double>& values);  // 0 for none
double median(std::vector<double> values);  // of values in any order; 0 for none
double robust_spread(const std::vector<double>& values);  // 1.4826 x the median absolute deviation
double standard_deviation(const std::vector<double>& values);  // n - 1; 0 for fewer than 2 values

}  // namespace collbench::summarize
