// The Mann-Whitney U test (Wilcoxon rank-sum), two-sided: do two samples come from the same
// distribution? Timing samples are skewed and heavy-tailed, so a rank test fits better than a t-test
// (google/benchmark's compare.py uses the same test).
#pragma once

#include <vector>

namespace collbench::summarize {

struct MannWhitneyResult {
  double u = 0;        // U of the first sample: pairs (a, b) with a > b, ties counting 1/2
  double p_value = 1;  // two-sided
  bool exact = false;  // exact distribution (small samples, no ties) or the normal approximation
};

// Requires both samples non-empty. Exact when both have at most 20 values and no value is tied;
// otherwise the normal approximation with tie correction and continuity correction.
MannWhitneyResult mann_whitney_u(const std::vector<double>& first, const std::vector<double>& second);

}  // namespace collbench::summarize
