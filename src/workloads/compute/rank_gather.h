// Bringing every rank's figures of one row together, and the platform each rank ran on.
#pragma once

#include <vector>

#include "core/world.h"
#include "report/report.h"

namespace collbench::compute {

// A collective call: every rank passes its figures (its rank is not read), every rank gets all of
// them in rank order.
std::vector<report::ThroughputRank> gather_rank_figures(World& world, const report::ThroughputRank& mine);

report::ThroughputSpread spread_of_ranks(const std::vector<report::ThroughputRank>& ranks);

// A collective call: every rank's platform, in rank order.
std::vector<report::RankPlatform> gather_platforms(World& world, const report::RankPlatform& mine);

}  // namespace collbench::compute
