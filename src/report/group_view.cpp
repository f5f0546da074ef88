#include "report/group_view.h"

#include <algorithm>
#include <cstdint>

namespace collbench::report {
namespace {

// A view's count: its bytes in the row's elements (bytes = count x element size in every row).
std::uint64_t count_of(const nlohmann::json& row, std::uint64_t bytes) {
  const std::uint64_t element = row.value("bytes", std::uint64_t{1}) / std::max<std::uint64_t>(1, row.value("count", std::uint64_t{1}));
  return bytes / std::max<std::uint64_t>(1, element);
}

}  // namespace

nlohmann::json group_row_view(const nlohmann::json& row, std::size_t index) {
  nlohmann::json view = row;
  const nlohmann::json& group = row["groups"][index];
  view["bytes"] = group["bytes"];
  view["count"] = count_of(row, group["bytes"].get<std::uint64_t>());
  view["time_us"] = group["time_us"];
  view["algbw_gbps"] = group["algbw_gbps"];
  view["busbw_gbps"] = group["busbw_gbps"];
  return view;
}

nlohmann::json aggregate_row_view(const nlohmann::json& row) {
  nlohmann::json view = row;
  const nlohmann::json& aggregate = row["aggregate"];
  view["bytes"] = aggregate["bytes_total"];
  view["count"] = count_of(row, aggregate["bytes_total"].get<std::uint64_t>());
  view["time_us"]["mean"] = aggregate["time_us"];
  view["algbw_gbps"] = aggregate["algbw_gbps"];
  view["busbw_gbps"] = aggregate["busbw_sum_gbps"];
  return view;
}

}  // namespace collbench::report
