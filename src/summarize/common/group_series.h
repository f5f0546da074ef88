// Concurrent groups (issue 62) in compare, history and plot: each group of a grouped report is a
// series of its own, found in another report by its id and its ranks.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "summarize/common/load.h"
#include "summarize/common/series.h"

namespace collbench::summarize {

// The key fields a group's rows carry before the kind's own: the group's id and its ranks ("0,2").
// Both, so that group 1 of ranks {1,3} is never paired with a group 1 of ranks {1,2}.
inline constexpr const char* kGroupKey = "group";
inline constexpr const char* kGroupRanksKey = "group_ranks";
inline bool is_group_key(const std::string& name) { return name == kGroupKey || name == kGroupRanksKey; }

// A report's concurrent groups as its rows carry them (the first grouped row's: every row of a run
// has the same groups), or nullptr without groups.
const nlohmann::json* groups_in(const report::Report& report);

// The reports with each grouped row replaced by one row per group: the group's bytes, time
// statistics and bandwidths (report::group_row_view), keyed by group and group_ranks, the group's
// own object (ranks, hosts, contention) in its fields' "group". A report without groups, or whose
// one group is the whole world, keeps its rows and gets no group key: one group, the world, as
// before groups.
std::vector<LoadedReport> rows_per_group(const std::vector<LoadedReport>& reports);

// A report's groups as "0 [0,2], 1 [1,3]", or "the world (no groups)".
std::string group_layout(const LoadedReport& loaded);
// The distinct layouts among reports.
std::set<std::string> group_layouts(const std::vector<LoadedReport>& reports);

// The group a series key names, as group_layout writes it ("1 [1,3]"); the world's is "".
std::string group_of_key(const SeriesKey& key);

// Erases from `series` the keys whose group `other` does not have (a series of another layout,
// which must not be paired with anything); returns how many it erased.
template <typename Value>
std::size_t erase_groups_not_in(std::map<SeriesKey, Value>& series,
                                const std::map<SeriesKey, Value>& other) {
  std::set<std::string> other_groups;
  for (const auto& [key, value] : other) other_groups.insert(group_of_key(key));
  std::size_t erased = 0;
  for (auto it = series.begin(); it != series.end();) {
    if (other_groups.count(group_of_key(it->first))) {
      ++it;
    } else {
      it = series.erase(it);
      ++erased;
    }
  }
  return erased;
}

}  // namespace collbench::summarize
