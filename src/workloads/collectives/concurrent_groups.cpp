#include "workloads/collectives/concurrent_groups.h"

#include <algorithm>
#include <map>

#include "core/printable.h"
#include "core/sizes.h"
#include "core/stats.h"
#include "report/report_json.h"

namespace collbench {
namespace {

double algbw_gbps(std::uint64_t bytes, double time_us) { return time_us > 0 ? static_cast<double>(bytes) / (time_us * 1e3) : 0.0; }

std::string joined_ranks(const std::vector<int>& ranks) {
  std::string text;
  for (int rank : ranks) text += (text.empty() ? "" : ",") + std::to_string(rank);
  return text;
}

}  // namespace

nlohmann::json groups_json(const std::vector<GroupFigures>& figures) {
  nlohmann::json groups = nlohmann::json::array();
  for (const GroupFigures& one : figures) {
    const double algbw = algbw_gbps(one.bytes, one.time_us.mean);
    groups.push_back({{"id", one.group->id},
                      {"ranks", one.group->ranks},
                      {"hosts", one.hosts},
                      {"bytes", one.bytes},
                      {"time_us", report::stats_to_json(one.time_us)},
                      {"algbw_gbps", algbw},
                      {"bus_bandwidth_factor", one.bus_bandwidth_factor},
                      {"busbw_gbps", algbw * one.bus_bandwidth_factor}});
    if (one.alone_us) {
      groups.back()["alone_time_us"] = report::stats_to_json(*one.alone_us);
      groups.back()["contention"] = one.alone_us->mean > 0 ? nlohmann::json(one.time_us.mean / one.alone_us->mean) : nlohmann::json(nullptr);
    }
  }
  return groups;
}

std::size_t slowest_group(const std::vector<GroupFigures>& figures) {
  return static_cast<std::size_t>(std::max_element(figures.begin(), figures.end(), [](const auto& a, const auto& b) {
                                    return a.time_us.mean < b.time_us.mean;
                                  }) - figures.begin());
}

nlohmann::json aggregate_json(const std::vector<GroupFigures>& figures) {
  std::uint64_t total = 0;
  double busbw_sum = 0;
  for (const GroupFigures& one : figures) {
    total += one.bytes;
    busbw_sum += algbw_gbps(one.bytes, one.time_us.mean) * one.bus_bandwidth_factor;
  }
  const double slowest_us = figures[slowest_group(figures)].time_us.mean;
  return {{"bytes_total", total}, {"time_us", slowest_us}, {"algbw_gbps", algbw_gbps(total, slowest_us)}, {"busbw_sum_gbps", busbw_sum}};
}

std::vector<SlowGroup> slow_groups(const nlohmann::json& rows, double factor) {
  std::uint64_t largest = 0;
  for (const nlohmann::json& row : rows) {
    if (row.contains("groups") && !row["busbw_gbps"].is_null()) largest = std::max(largest, row.value("bytes", std::uint64_t{0}));
  }
  // Each group's busbw over the rows of the largest size, then its mean.
  std::map<int, SlowGroup> seen;
  std::map<int, std::vector<double>> busbw_of;
  for (const nlohmann::json& row : rows) {
    if (!row.contains("groups") || row.value("bytes", std::uint64_t{0}) != largest) continue;
    for (const nlohmann::json& group : row["groups"]) {
      const int id = group["id"];
      SlowGroup& entry = seen[id];
      entry.id = id;
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
  std::vector<SlowGroup> slow;
  for (auto& [id, entry] : seen) {
    const std::vector<double>& peers = by_size[entry.ranks.size()];
    if (peers.size() < 2) continue;
    entry.median_busbw_gbps = median_of(peers);
    if (entry.busbw_gbps < factor * entry.median_busbw_gbps) slow.push_back(entry);
  }
  return slow;
}

std::string slow_group_line(const SlowGroup& slow, double factor) {
  std::vector<std::string> hosts = slow.hosts;
  std::sort(hosts.begin(), hosts.end());
  hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
  std::string host_text;
  for (const std::string& host : hosts) host_text += (host_text.empty() ? "" : ",") + printable(host);
  return formatted("SLOW group %d (ranks %s; hosts %s): bus bandwidth %.3f GB/s at %s is below %g x the median %.3f GB/s of its %zu-rank peers",
                   slow.id, joined_ranks(slow.ranks).c_str(), host_text.c_str(), slow.busbw_gbps, format_size(slow.bytes).c_str(),
                   factor, slow.median_busbw_gbps, slow.ranks.size());
}

}  // namespace collbench
