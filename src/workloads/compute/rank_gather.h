// Bringing every rank's figures of one row together, their spread, and the platform each rank ran on.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/world.h"
#include "report/report.h"

namespace collbench::compute {

// A collective call: every rank passes its figures (its rank is not read), every rank gets all of
// them in rank order.
std::vector<report::ThroughputRank> gather_rank_figures(World& world, const report::ThroughputRank& mine);

using Spread = report::ThroughputSpread;
// Over every rank's rate (higher is faster); requires at least one; a rate of 0 makes the ratio infinite.
Spread spread_of(const std::vector<double>& rates);
Spread spread_of_ranks(const std::vector<report::ThroughputRank>& ranks);
// Every rank's figures as a row's "per_rank" holds them, the rate under the kind's unit ("tflops", "gbps").
nlohmann::json rank_figures_json(const std::vector<report::ThroughputRank>& ranks, const std::string& unit);

// A collective call: every rank's platform, in rank order.
std::vector<report::RankPlatform> gather_platforms(World& world, const report::RankPlatform& mine);

}  // namespace collbench::compute
