// Bringing every rank's figures of one row together, and the platform each rank ran on.
#pragma once

#include <optional>
#include <vector>

#include "core/stats.h"
#include "core/world.h"
#include "report/report.h"

namespace collbench::compute {

struct MyFigures {
  TimeStats time_us;
  double rate = 0;
  std::optional<double> percent_of_peak;
  std::optional<double> relative_error;
  std::optional<std::int64_t> wrong;
};

// A collective call: every rank passes its figures, every rank gets all of them in rank order.
std::vector<report::ThroughputRank> gather_rank_figures(World& world, const MyFigures& mine);

report::ThroughputSpread spread_of_ranks(const std::vector<report::ThroughputRank>& ranks);

// A collective call: every rank's platform, in rank order.
std::vector<report::RankPlatform> gather_platforms(World& world, const report::RankPlatform& mine);

}  // namespace collbench::compute
