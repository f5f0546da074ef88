// Concurrent groups' figures (issue 62): every group runs the same sweep on its own
// communicator at once; a row carries each group's time and bandwidth (busbw from the group's own
// size) and the aggregate.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/rank_groups.h"
#include "core/stats.h"

namespace collbench {

// One group's figures in one row, from its per-sample times combined over its ranks.
struct GroupFigures {
  const RankGroup* group = nullptr;
  std::vector<std::string> hosts;  // each rank's, in the group's order
  std::uint64_t bytes = 0;         // the group's message size (it depends on the group's size)
  TimeStats time_us;
  double bus_bandwidth_factor = 0;  // nccl-tests' factor at the group's size
  std::optional<TimeStats> alone_us;  // --alone: the group timed by itself, the others waiting
};

// A row's "groups" (one object per group: id, ranks, hosts, bytes, time_us, algbw_gbps,
// busbw_gbps, bus_bandwidth_factor; with --alone also alone_time_us and contention, its mean time
// beside the others over its mean time alone) and "aggregate" (bytes_total, time_us: the slowest group's
// mean, algbw_gbps: total bytes over that time, busbw_sum_gbps: the sum of the groups' busbw).
nlohmann::json groups_json(const std::vector<GroupFigures>& figures);
nlohmann::json aggregate_json(const std::vector<GroupFigures>& figures);
// The index of the slowest group by mean time (the aggregate's time).
std::size_t slowest_group(const std::vector<GroupFigures>& figures);

// The SLOW verdict over a report's grouped rows is report::judge_groups (report/group_view.h):
// `collbench table` judges a report by the same rule.

}  // namespace collbench
