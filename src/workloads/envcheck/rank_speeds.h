// envcheck's verdict on ranks: slow-rank detection and the advice it gives. Pure functions over
// per-rank rates (higher is faster), so they are tested without MPI.
#pragma once

#include <string>
#include <vector>

namespace collbench::compute {

// Every rank's speed relative to the fastest on the worst of several metrics (1 = as fast as the
// fastest on every metric). `metrics[m][rank]` is the rate of rank on metric m.
std::vector<double> relative_speeds(const std::vector<std::vector<double>>& metrics);

// Ranks whose relative speed is below 1/slow_factor, i.e. slower than the fastest by more than slow_factor.
std::vector<int> slow_ranks(const std::vector<double>& relative_speed, double slow_factor);

enum class Advice { kKeep, kRebalance, kExclude };
std::string to_string(Advice advice);

struct Recommendation {
  Advice advice = Advice::kKeep;
  double spread_ratio = 1;       // fastest / slowest relative speed
  std::vector<double> weights;   // per rank, proportional to speed, summing to 1 (kRebalance, and always reported)
  std::vector<int> exclude;      // kExclude: the slow ranks
  std::string text;              // one sentence for the terminal
};

// keep: spread under 20%; exclude the slow ranks: spread over 2x; otherwise rebalance by speed.
Recommendation recommend(const std::vector<double>& relative_speed, double slow_factor);

}  // namespace collbench::compute
