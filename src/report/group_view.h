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

// What a group's busbw is judged against (kSlowGroupRule): the median busbw of the faster half of
// its same-size groups. A run records it in context.options.slow_group_reference (schema 2.11); a
// report without it ran before and was judged against the median of all its same-size groups,
// as nccl-tests' pending pull request judges, and is judged so again when read.
enum class SlowGroupReference { kMedianOfAll, kMedianOfFasterHalf };
inline constexpr SlowGroupReference kSlowGroupReference = SlowGroupReference::kMedianOfFasterHalf;  // a run's
const char* to_string(SlowGroupReference reference);  // "median_of_all", "median_of_faster_half"
// A report's from its context.options (kMedianOfAll where absent); none for a value that names no reference.
std::optional<SlowGroupReference> slow_group_reference_of(const nlohmann::json& options);

// One group judged at the largest size of a report's grouped rows.
struct GroupVerdict {
  int id = 0;
  std::vector<int> ranks;
  std::vector<std::string> hosts;
  std::uint64_t bytes = 0;                  // the largest size, where it was judged
  double busbw_gbps = 0;                       // its mean busbw over the rows at that size
  std::optional<double> reference_busbw_gbps;  // what it was judged against; none: not judged
  SlowGroupReference reference = kSlowGroupReference;
  bool slow = false;
};

// The SLOW rule in the words `collbench table --groups summary` and the docs give it. The
// reference is the faster half's median, not the median of all (nccl-tests' pending pull request):
// a slow link or switch port is crossed by half of the groups as often as by one (one host's link
// in a bisection of four hosts: 2 of 4 pairs), and the median of all then sits between the slow
// and the fast, so that F x it calls them only below F / (2 - F) of the others, and never once
// more than half are slow. The faster half's median moves with none of them while they are at
// most half, so F keeps its meaning: the share of the healthy groups' busbw below which a group is
// SLOW.
inline constexpr const char* kSlowGroupRule =
    "a group is SLOW when its busbw at the largest size (the mean over that size's rows) is below F (--slow-group-factor) "
    "times the reference: the median busbw of the faster half of the groups with as many ranks";

// Every group of `rows` (a report's collective rows; those without "groups" are ignored), by id,
// judged by kSlowGroupRule with F = `factor`: at the largest size, each group's busbw averaged
// over the rows of that size (dtypes, ops, placements); the faster half of n same-size groups are
// the ceil(n/2) of highest busbw (of two groups, the faster; a group is compared with itself only
// where it is one of them). `reference`: a report's own, where it was made before the rule. A
// group with no same-size peer, or of one rank (no data crosses ranks), is never judged.
std::vector<GroupVerdict> judge_groups(const nlohmann::json& rows, double factor, SlowGroupReference reference = kSlowGroupReference);
// The SLOW ones among them.
std::vector<GroupVerdict> slow_groups(const nlohmann::json& rows, double factor, SlowGroupReference reference = kSlowGroupReference);

// One line naming the group and its hosts, as the slow-rank verdicts do.
std::string slow_group_line(const GroupVerdict& slow, double factor);

}  // namespace collbench::report
