#include "summarize/mann_whitney.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace collbench::summarize {
namespace {

// Number of arrangements of m and n values (no ties) giving each U, by the classic recurrence
// f(m, n, u) = f(m - 1, n, u - n) + f(m, n - 1, u); doubles hold C(40, 20) exactly enough.
std::vector<double> exact_u_counts(int m, int n) {
  // table[j][u] for the current i (rows of m), built up over i.
  std::vector<std::vector<double>> previous(n + 1, std::vector<double>(m * n + 1, 0));
  for (int j = 0; j <= n; ++j) previous[j][0] = 1;  // i = 0: only U = 0
  for (int i = 1; i <= m; ++i) {
    std::vector<std::vector<double>> current(n + 1, std::vector<double>(m * n + 1, 0));
    current[0][0] = 1;  // j = 0: only U = 0
    for (int j = 1; j <= n; ++j) {
      for (int u = 0; u <= i * j; ++u) {
        // The largest of all values is either from the first sample (it beats all j others) or not.
        current[j][u] = (u >= j ? previous[j][u - j] : 0) + current[j - 1][u];
      }
    }
    previous = std::move(current);
  }
  return previous[n];
}

double normal_two_sided_p(double z) { return std::erfc(std::fabs(z) / std::sqrt(2.0)); }

}  // namespace

MannWhitneyResult mann_whitney_u(const std::vector<double>& first, const std::vector<double>& second) {
  if (first.empty() || second.empty()) throw std::invalid_argument("mann_whitney_u needs two non-empty samples");
  const std::size_t m = first.size(), n = second.size();
  struct Entry {
    double value;
    bool from_first;
  };
  std::vector<Entry> all;
  for (double value : first) all.push_back({value, true});
  for (double value : second) all.push_back({value, false});
  std::sort(all.begin(), all.end(), [](const Entry& a, const Entry& b) { return a.value < b.value; });

  double rank_sum_first = 0, tie_term = 0;
  bool tied = false;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j].value == all[i].value) ++j;
    const double average_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;  // ranks i+1 .. j
    for (std::size_t k = i; k < j; ++k) {
      if (all[k].from_first) rank_sum_first += average_rank;
    }
    const double size = static_cast<double>(j - i);
    if (j - i > 1) tied = true;
    tie_term += size * size * size - size;
    i = j;
  }
  MannWhitneyResult result;
  const double dm = static_cast<double>(m), dn = static_cast<double>(n);
  result.u = rank_sum_first - dm * (dm + 1) / 2;
  const double mean_u = dm * dn / 2;

  if (!tied && m <= 20 && n <= 20) {
    const std::vector<double> counts = exact_u_counts(static_cast<int>(m), static_cast<int>(n));
    double total = 0;
    for (double count : counts) total += count;
    // Two-sided: twice the smaller tail, capped at 1.
    const int u = static_cast<int>(std::lround(result.u));
    const int reflected = static_cast<int>(m * n) - u;
    const int low = std::min(u, reflected);
    double tail = 0;
    for (int k = 0; k <= low; ++k) tail += counts[k];
    result.p_value = std::min(1.0, 2 * tail / total);
    result.exact = true;
    return result;
  }
  const double total = dm + dn;
  const double variance = dm * dn / 12 * ((total + 1) - tie_term / (total * (total - 1)));
  if (variance <= 0) {  // every value equal: no evidence of any difference
    result.p_value = 1;
    return result;
  }
  const double distance = std::max(0.0, std::fabs(result.u - mean_u) - 0.5);
  result.p_value = std::min(1.0, normal_two_sided_p(distance / std::sqrt(variance)));
  return result;
}

}  // namespace collbench::summarize
