#include "workloads/collectives/concurrent_groups.h"

#include <algorithm>

#include "core/stats.h"
#include "report/report_json.h"

namespace collbench {
namespace {

double algbw_gbps(std::uint64_t bytes, double time_us) { return time_us > 0 ? static_cast<double>(bytes) / (time_us * 1e3) : 0.0; }

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

}  // namespace collbench
