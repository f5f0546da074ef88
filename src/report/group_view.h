// The views of a grouped collective row (concurrent groups, issue 62; schema 2.8): one group's
// figures, or the aggregate's, in the row's own shape, so that nccl-tests' table prints either
// with its one writer, live and in `collbench table`.
#pragma once

#include <cstddef>

#include <nlohmann/json.hpp>

namespace collbench::report {

// Whether a collective row carries groups.
inline bool is_grouped(const nlohmann::json& row) { return row.contains("groups") && row["groups"].is_array(); }

// The row with group `index`'s bytes, count, time and bandwidths in place of the headline.
nlohmann::json group_row_view(const nlohmann::json& row, std::size_t index);
// The row with the aggregate in place of the headline: every group's bytes, the slowest group's
// time, the total's algbw and the sum of the groups' busbw.
nlohmann::json aggregate_row_view(const nlohmann::json& row);

}  // namespace collbench::report
