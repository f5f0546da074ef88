#include "summarize/common/series.h"
#include "workloads/collectives/report/collective_rows.h"

#include "summarize/common/group_series.h"

namespace collbench::summarize {

bool is_bookkeeping_tag(const std::string& key) { return key == "np" || key == "repeat" || key == "sweep_point"; }

std::string tags_text(const report::Context& context, const std::string& also_ignored) {
  std::string text;
  for (const auto& [key, value] : context.tags) {
    if (is_bookkeeping_tag(key) || key == also_ignored) continue;
    text += (text.empty() ? "" : " ") + key + "=" + value;
  }
  return text;
}

std::vector<Observation> observations(const std::vector<LoadedReport>& reports) {
  std::vector<Observation> out;
  for (const auto& loaded : reports) {
    for (const auto& row : loaded.report.rows) out.push_back({&loaded, &row});
  }
  return out;
}

SeriesKey row_identity(const Observation& observation) {
  const auto& report = observation.source->report;
  const auto& row = *observation.row;
  SeriesKey key = {{"benchmark", report.benchmark}, {"world_size", std::to_string(report.context.world_size)}};
  key.insert(key.end(), row.keys.begin(), row.keys.end());
  key.emplace_back(report::row_kind_spec(row.kind).size_column, row.size_text);
  return key;
}

std::string describe_key(const SeriesKey& key) {
  std::string text;
  for (const auto& [name, value] : key) text += (text.empty() ? "" : " ") + name + "=" + value;
  return text;
}

std::string key_word(const std::string& name, const std::string& value) {
  if ((name == "op" && value == "none") || (name == "root" && value == "-1")) return "";
  if (name == "world_size") return "np=" + value;
  if (name == "root" || name == kGroupKey) return name + "=" + value;
  if (name == kGroupRanksKey) return "ranks=" + value;
  return value;
}

const report::RowKindSpec& kind_of(const std::vector<LoadedReport>& reports) {
  return report::row_kind_spec(reports.empty() ? report::kCollectiveRows : reports.front().report.kind);
}

std::optional<std::string> key_field(const report::Row& row, const std::string& field) {
  for (const auto& [name, value] : row.keys) {
    if (name == field) return value;
  }
  return std::nullopt;
}

nlohmann::json size_cell(const report::Row& row) {
  if (report::row_kind_spec(row.kind).size_fields.size() == 1) return row.size;
  return row.size_text;
}

std::optional<double> headline(const report::Row& row) { return row.figures.empty() ? std::nullopt : row.figures.front(); }

std::vector<std::string> key_names(const SeriesKey& key) {
  std::vector<std::string> names;
  for (const auto& entry : key) names.push_back(entry.first);
  return names;
}

std::vector<nlohmann::json> key_cells(const SeriesKey& key) {
  std::vector<nlohmann::json> cells;
  for (const auto& entry : key) cells.emplace_back(entry.second);
  return cells;
}

}  // namespace collbench::summarize
