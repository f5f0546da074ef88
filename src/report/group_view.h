// The views of a grouped collective row (concurrent groups, issue 62; schema 2.8): one group's
// figures, or the aggregate's, in the row's own shape, so that nccl-tests' table prints either
// with its one writer, live and in `collbench table`, and the summarizer reads a group as a row.
// And the groups' SLOW verdict over a report's rows: the run's exit 3 and `collbench table`'s
// summary judge by this one rule.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace collbench::report {

// Whether a collective row carries groups.
inline bool is_grouped(const nlohmann::json& row) { return row.contains("groups") && row["groups"].is_array(); }

// The row with group `index`'s bytes, count, time and bandwidths in place of the headline (and
// without the headline's samples, which are not this group's).
nlohmann::json group_row_view(const nlohmann::json& row, std::size_t index);
// The row with the aggregate in place of the headline: every group's bytes, the slowest group's
// time, the total's algbw and the sum of the groups' busbw.
nlohmann::json aggregate_row_view(const nlohmann::json& row);

// "0,2": a group's ranks as a key and a table cell.
std::string ranks_text(const std::vector<int>& ranks);
// "a,b": the distinct hosts of a group, sorted, each made printable.
std::string hosts_text(std::vector<std::string> hosts);

// One group judged at the largest size of a report's grouped rows.
struct GroupVerdict {
  int id = 0;
  std::vector<int> ranks;
  std::vector<std::string> hosts;
  std::uint64_t bytes = 0;                  // the largest size, where it was judged
  double busbw_gbps = 0;                    // its mean busbw over the rows at that size
  std::optional<double> median_busbw_gbps;  // the median of its same-size groups'; none: not judged
  bool slow = false;
};

// Every group of `rows` (a report's collective rows; those without "groups" are ignored), by id:
// at the largest size, each group's busbw averaged over the rows of that size (dtypes, ops,
// placements), against the median of the groups with as many ranks; below `factor` x it is SLOW.
// A group with no same-size peer, or of one rank (no data crosses ranks), is never judged.
std::vector<GroupVerdict> judge_groups(const nlohmann::json& rows, double factor);
// The SLOW ones among them.
std::vector<GroupVerdict> slow_groups(const nlohmann::json& rows, double factor);

// One line naming the group and its hosts, as the slow-rank verdicts do.
std::string slow_group_line(const GroupVerdict& slow, double factor);

}  // namespace collbench::report
