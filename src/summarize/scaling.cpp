#include "summarize/scaling.h"

#include <map>
#include <tuple>

#include "summarize/input_error.h"

namespace collbench::summarize {
namespace {

SeriesKey scaling_key(const Observation& observation) {
  const auto& report = observation.source->report;
  const auto& row = *observation.row;
  return {{"benchmark", report.benchmark}, {"backend", row.backend},     {"algorithm", row.algorithm},
          {"dtype", row.dtype},            {"op", row.op},               {"root", std::to_string(row.root)},
          {"placement", row.placement},    {"tags", tags_text(report.context)}};
}

struct Samples {
  std::vector<double> times;
  std::vector<double> busbws;
};

}  // namespace

std::vector<ScalingSeries> compute_scaling(const std::vector<LoadedReport>& reports) {
  // std::map keeps series and points in a stable, sorted order for free.
  std::map<SeriesKey, std::map<std::pair<std::uint64_t, int>, Samples>> grouped;
  for (const auto& observation : observations(reports)) {
    auto& samples = grouped[scaling_key(observation)][{observation.row->bytes, observation.source->report.context.world_size}];
    samples.times.push_back(observation.row->time_us.mean);
    if (observation.row->busbw_gbps) samples.busbws.push_back(*observation.row->busbw_gbps);
  }
  std::vector<ScalingSeries> out;
  for (const auto& [key, points] : grouped) {
    ScalingSeries series{key, {}};
    const ScalingPoint* base = nullptr;
    for (const auto& [where, samples] : points) {
      ScalingPoint point;
      point.bytes = where.first;
      point.world_size = where.second;
      point.time_us = median(samples.times);
      if (!samples.busbws.empty()) point.busbw_gbps = median(samples.busbws);
      point.runs = static_cast<int>(samples.times.size());
      series.points.push_back(point);
    }
    // Points are sorted by (bytes, world size): the first of each size is its baseline.
    for (auto& point : series.points) {
      if (!base || base->bytes != point.bytes) base = &point;
      point.speedup = point.time_us > 0 ? base->time_us / point.time_us : 0;
      point.efficiency = point.speedup * base->world_size / point.world_size;
    }
    out.push_back(std::move(series));
  }
  return out;
}

Document scaling_document(const std::vector<ScalingSeries>& series, std::optional<std::uint64_t> at_bytes) {
  Table table;
  table.title = at_bytes ? "Scaling at " + std::to_string(*at_bytes) + " B" : "Scaling";
  if (!series.empty()) table.group_columns = key_names(series.front().key);
  table.columns = {{"bytes"}, {"world_size"}, {"time_us", 2}, {"busbw_gbps", 3}, {"speedup", 3}, {"efficiency", 3}, {"runs"}};
  for (const auto& one : series) {
    Table::Group group{key_cells(one.key), {}};
    for (const auto& point : one.points) {
      if (at_bytes && point.bytes != *at_bytes) continue;
      group.rows.push_back({point.bytes, point.world_size, point.time_us,
                            point.busbw_gbps ? nlohmann::json(*point.busbw_gbps) : nlohmann::json(nullptr),
                            point.speedup, point.efficiency, point.runs});
    }
    if (!group.rows.empty()) table.groups.push_back(std::move(group));
  }
  if (at_bytes && table.groups.empty()) throw InputError("no row has size " + std::to_string(*at_bytes) + " B");
  Document document;
  document.tables.push_back(std::move(table));
  document.notes.push_back("speedup = time at the smallest world size / time; efficiency = speedup x smallest world size / world size; "
                           "time is the median over repeated runs of each row's mean");
  return document;
}

}  // namespace collbench::summarize
