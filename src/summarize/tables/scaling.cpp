#include "summarize/tables/scaling.h"

#include <map>
#include <tuple>

#include "summarize/common/input_error.h"

namespace collbench::summarize {
namespace {

SeriesKey scaling_key(const Observation& observation) {
  const auto& report = observation.source->report;
  const auto& row = *observation.row;
  SeriesKey key = {{"benchmark", report.benchmark}};
  key.insert(key.end(), row.keys.begin(), row.keys.end());
  key.emplace_back("tags", tags_text(report.context));
  return key;
}

struct Samples {
  nlohmann::json size_cell;
  std::vector<double> times;
  std::vector<double> rates;
};

}  // namespace

std::vector<ScalingSeries> compute_scaling(const std::vector<LoadedReport>& reports) {
  // std::map keeps series and points in a stable, sorted order for free.
  // Shapes with the same m*n*k are different points: the size text keeps them apart.
  std::map<SeriesKey, std::map<std::tuple<std::uint64_t, std::string, int>, Samples>> grouped;
  std::map<SeriesKey, report::RowKind> kinds;
  for (const auto& observation : observations(reports)) {
    const report::Row& row = *observation.row;
    if (!row.time_us) throw InputError(observation.source->path + ": " + report::row_kind_spec(row.kind).name + " rows have no timings to scale");
    const SeriesKey key = scaling_key(observation);
    kinds[key] = row.kind;
    auto& samples = grouped[key][{row.size, row.size_text, observation.source->report.context.world_size}];
    samples.size_cell = size_cell(row);
    samples.times.push_back(*row.time_us);
    if (headline(row)) samples.rates.push_back(*headline(row));
  }
  std::vector<ScalingSeries> out;
  for (const auto& [key, points] : grouped) {
    ScalingSeries series{key, {}};
    const ScalingPoint* base = nullptr;
    for (const auto& [where, samples] : points) {
      ScalingPoint point;
      point.bytes = std::get<0>(where);
      point.size_cell = samples.size_cell;
      point.world_size = std::get<2>(where);
      point.time_us = median(samples.times);
      if (!samples.rates.empty()) point.headline_rate = median(samples.rates);
      point.runs = static_cast<int>(samples.times.size());
      series.points.push_back(point);
    }
    // Points are sorted by (bytes, world size): the first of each size is its baseline.
    // A job-throughput headline (ddp_step: samples/s) scales by its ratio, so weak scaling (more
    // samples per step as ranks are added) reads as the speedup users quote; time otherwise.
    const bool by_rate = report::row_kind_spec(kinds[key]).headline_is_job_throughput;
    for (auto& point : series.points) {
      if (!base || base->size_cell != point.size_cell) base = &point;
      if (by_rate && base->headline_rate && point.headline_rate && *base->headline_rate > 0) {
        point.speedup = *point.headline_rate / *base->headline_rate;
      } else {
        point.speedup = point.time_us > 0 ? base->time_us / point.time_us : 0;
      }
      point.efficiency = point.speedup * base->world_size / point.world_size;
    }
    out.push_back(std::move(series));
  }
  return out;
}

Document scaling_document(const std::vector<ScalingSeries>& series, std::optional<std::uint64_t> at_bytes,
                          const report::RowKindSpec& kind) {
  Table table;
  table.title = at_bytes ? "Scaling at " + std::to_string(*at_bytes) + " B" : "Scaling";
  if (!series.empty()) table.group_columns = key_names(series.front().key);
  table.columns = {{kind.size_column}, {"world_size"}, {"time_us", 2}, {kind.figures.front().path, 3}, {"speedup", 3}, {"efficiency", 3}, {"runs"}};
  for (const auto& one : series) {
    Table::Group group{key_cells(one.key), {}};
    for (const auto& point : one.points) {
      if (at_bytes && point.bytes != *at_bytes) continue;
      group.rows.push_back({point.size_cell, point.world_size, point.time_us, report::json_or_null(point.headline_rate),
                            point.speedup, point.efficiency, point.runs});
    }
    if (!group.rows.empty()) table.groups.push_back(std::move(group));
  }
  if (at_bytes && table.groups.empty()) throw InputError("no row has size " + std::to_string(*at_bytes) + " B");
  Document document;
  document.tables.push_back(std::move(table));
  if (kind.headline_is_job_throughput) {
    document.notes.push_back(std::string("speedup = ") + kind.figures.front().path + " / " + kind.figures.front().path +
                             " at the smallest world size (the job's throughput, so weak and strong scaling read alike); "
                             "efficiency = speedup x smallest world size / world size; time and rates are medians over repeated runs");
  } else {
    document.notes.push_back("speedup = time at the smallest world size / time; efficiency = speedup x smallest world size / world size; "
                             "time is the median over repeated runs of each row's mean");
  }
  return document;
}

}  // namespace collbench::summarize
