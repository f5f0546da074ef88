#include "report/group_view.h"

#include <algorithm>
#include <map>

#include "core/printable.h"
#include "core/sizes.h"
#include "core/stats.h"

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
  view.erase("samples_us");
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

std::string ranks_text(const std::vector<int>& ranks) {
  std::vector<std::string> texts;
  for (int rank : ranks) texts.push_back(std::to_string(rank));
  return joined(texts, ",");
}

std::string hosts_text(std::vector<std::string> hosts) {
  std::sort(hosts.begin(), hosts.end());
  hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
  for (std::string& host : hosts) host = printable(host);
  return joined(hosts, ",");
}

const char* to_string(SlowGroupReference reference) {
  return reference == SlowGroupReference::kMedianOfAll ? "median_of_all" : "median_of_faster_half";
}

std::optional<SlowGroupReference> slow_group_reference_of(const nlohmann::json& options) {
  const auto it = options.find("slow_group_reference");
  if (it == options.end()) return SlowGroupReference::kMedianOfAll;
  for (SlowGroupReference reference : {SlowGroupReference::kMedianOfAll, SlowGroupReference::kMedianOfFasterHalf}) {
    if (it->is_string() && it->get<std::string>() == to_string(reference)) return reference;
  }
  return std::nullopt;
}

std::vector<GroupVerdict> judge_groups(const nlohmann::json& rows, double factor, SlowGroupReference reference) {
  std::uint64_t largest = 0;
  for (const nlohmann::json& row : rows) {
    if (is_grouped(row) && !row["busbw_gbps"].is_null()) largest = std::max(largest, row.value("bytes", std::uint64_t{0}));
  }
  // Each group's busbw over the rows of the largest size, then its mean.
  std::map<int, GroupVerdict> seen;
  std::map<int, std::vector<double>> busbw_of;
  for (const nlohmann::json& row : rows) {
    if (!is_grouped(row) || row.value("bytes", std::uint64_t{0}) != largest) continue;
    for (const nlohmann::json& group : row["groups"]) {
      const int id = group["id"];
      GroupVerdict& entry = seen[id];
      entry.id = id;
      entry.reference = reference;
      entry.ranks = group["ranks"].get<std::vector<int>>();
      entry.hosts = group["hosts"].get<std::vector<std::string>>();
      entry.bytes = largest;
      busbw_of[id].push_back(group["busbw_gbps"].get<double>());
    }
  }
  std::map<std::size_t, std::vector<double>> by_size;  // group size -> its groups' busbw
  for (auto& [id, entry] : seen) {
    const std::vector<double>& values = busbw_of[id];
    double sum = 0;
    for (double value : values) sum += value;
    entry.busbw_gbps = sum / static_cast<double>(values.size());
    by_size[entry.ranks.size()].push_back(entry.busbw_gbps);
  }
  std::vector<GroupVerdict> judged;
  for (auto& [id, entry] : seen) {
    const std::vector<double>& peers = by_size[entry.ranks.size()];
    if (peers.size() >= 2 && entry.ranks.size() > 1) {  // a group of one moves no data: nothing to judge
      entry.reference_busbw_gbps = reference == SlowGroupReference::kMedianOfAll ? median_of(peers) : median_of_upper_half(peers);
      entry.slow = entry.busbw_gbps < factor * *entry.reference_busbw_gbps;
    }
    judged.push_back(entry);
  }
  return judged;
}

std::vector<GroupVerdict> slow_groups(const nlohmann::json& rows, double factor, SlowGroupReference reference) {
  std::vector<GroupVerdict> slow = judge_groups(rows, factor, reference);
  slow.erase(std::remove_if(slow.begin(), slow.end(), [](const GroupVerdict& group) { return !group.slow; }), slow.end());
  return slow;
}

std::string slow_group_line(const GroupVerdict& slow, double factor) {
  return formatted("SLOW group %d (ranks %s; hosts %s): bus bandwidth %.3f GB/s at %s is below %g x %.3f GB/s, the median of %sthe %zu-rank groups",
                   slow.id, ranks_text(slow.ranks).c_str(), hosts_text(slow.hosts).c_str(), slow.busbw_gbps, format_size(slow.bytes).c_str(),
                   factor, slow.reference_busbw_gbps.value_or(0),
                   slow.reference == SlowGroupReference::kMedianOfAll ? "" : "the faster half of ", slow.ranks.size());
}

}  // namespace collbench::report
