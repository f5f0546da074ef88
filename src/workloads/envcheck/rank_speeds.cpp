#include "workloads/envcheck/rank_speeds.h"

#include <algorithm>
#include <numeric>

#include "core/printable.h"
#include "workloads/compute/rank_gather.h"

namespace collbench::compute {

std::vector<double> relative_speeds(const std::vector<std::vector<double>>& metrics) {
  if (metrics.empty() || metrics.front().empty()) return {};
  std::vector<double> relative(metrics.front().size(), 1.0);
  for (const auto& rates : metrics) {
    const double fastest = *std::max_element(rates.begin(), rates.end());
    for (std::size_t rank = 0; rank < rates.size() && rank < relative.size(); ++rank) {
      const double speed = fastest > 0 ? rates[rank] / fastest : 0;
      relative[rank] = std::min(relative[rank], speed);
    }
  }
  return relative;
}

std::vector<int> slow_ranks(const std::vector<double>& relative_speed, double slow_factor) {
  std::vector<int> slow;
  for (std::size_t rank = 0; rank < relative_speed.size(); ++rank) {
    if (relative_speed[rank] * slow_factor < 1.0) slow.push_back(static_cast<int>(rank));
  }
  return slow;
}

std::string to_string(Advice advice) {
  switch (advice) {
    case Advice::kKeep: return "keep";
    case Advice::kRebalance: return "rebalance";
    case Advice::kExclude: return "exclude";
  }
  return "?";
}

Recommendation recommend(const std::vector<double>& relative_speed, double slow_factor) {
  Recommendation out;
  if (relative_speed.empty()) return out;
  const Spread spread = spread_of(relative_speed);
  out.spread_ratio = spread.ratio;
  const double total = std::accumulate(relative_speed.begin(), relative_speed.end(), 0.0);
  for (double speed : relative_speed) out.weights.push_back(total > 0 ? speed / total : 1.0 / relative_speed.size());
  const std::string ratio_text = formatted("%.2fx", spread.ratio);
  if (spread.ratio < 1.2) {
    out.advice = Advice::kKeep;
    out.text = std::string("keep all ranks: the fastest is ") + ratio_text + " the slowest (under 1.2x)";
  } else if (spread.ratio > 2.0) {
    out.advice = Advice::kExclude;
    // Exclude what is slow by the user's own threshold; with a threshold above 2 the slowest at least.
    out.exclude = slow_ranks(relative_speed, std::min(slow_factor, 2.0));
    out.text = std::string("exclude the slow ranks: the fastest is ") + ratio_text + " the slowest (over 2x)";
  } else {
    out.advice = Advice::kRebalance;
    out.text = std::string("rebalance: give each rank data in proportion to its weight; the fastest is ") + ratio_text +
               " the slowest";
  }
  return out;
}

}  // namespace collbench::compute
