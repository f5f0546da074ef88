#include "summarize/common/group_series.h"

#include "core/printable.h"
#include "report/group_view.h"
#include "report/report_json.h"
#include "summarize/common/input_error.h"

namespace collbench::summarize {
namespace {

// A report's groups, or nullptr: no groups, or one group of the whole world, which is how a report
// from before groups reads.
const nlohmann::json* groups_of(const report::Report& report) {
  const nlohmann::json* groups = groups_in(report);
  const bool whole_world = groups && groups->size() == 1 && (*groups)[0]["ranks"].size() == static_cast<std::size_t>(report.context.world_size);
  return whole_world ? nullptr : groups;
}

std::string group_label(const std::string& id, const std::string& ranks) { return id + " [" + ranks + "]"; }

// Group `index` of a grouped row as a row of its own.
report::Row group_row(const LoadedReport& loaded, const report::Row& row, std::size_t index) {
  const nlohmann::json& group = row.fields["groups"][index];
  nlohmann::json view = report::group_row_view(row.fields, index);
  view.erase("groups");
  view.erase("aggregate");
  view["group"] = group;
  report::Row split;
  try {
    split = report::row_from_json(view, row.kind);
  } catch (const report::ReportFormatError& e) {
    throw InputError(loaded.path + ": group " + group.value("id", nlohmann::json()).dump() + ": " + e.what());
  }
  split.keys.insert(split.keys.begin(), {{kGroupKey, std::to_string(group["id"].get<int>())},
                                         {kGroupRanksKey, report::ranks_text(group["ranks"].get<std::vector<int>>())}});
  return split;
}

}  // namespace

const nlohmann::json* groups_in(const report::Report& report) {
  for (const auto& row : report.rows) {
    if (report::is_grouped(row.fields)) return &row.fields["groups"];
  }
  return nullptr;
}

std::vector<LoadedReport> rows_per_group(const std::vector<LoadedReport>& reports) {
  std::vector<LoadedReport> out;
  out.reserve(reports.size());
  for (const auto& loaded : reports) {
    out.push_back(loaded);
    if (!groups_of(loaded.report)) continue;
    std::vector<report::Row>& rows = out.back().report.rows;
    rows.clear();
    for (const auto& row : loaded.report.rows) {
      if (!report::is_grouped(row.fields)) {
        rows.push_back(row);
        continue;
      }
      for (std::size_t g = 0; g < row.fields["groups"].size(); ++g) rows.push_back(group_row(loaded, row, g));
    }
  }
  return out;
}

std::string group_layout(const LoadedReport& loaded) {
  const nlohmann::json* groups = groups_of(loaded.report);
  if (!groups) return "the world (no groups)";
  std::vector<std::string> labels;
  for (const auto& group : *groups) {
    labels.push_back(group_label(std::to_string(group["id"].get<int>()), report::ranks_text(group["ranks"].get<std::vector<int>>())));
  }
  return joined(labels, ", ");
}

std::set<std::string> group_layouts(const std::vector<LoadedReport>& reports) {
  std::set<std::string> layouts;
  for (const auto& loaded : reports) layouts.insert(group_layout(loaded));
  return layouts;
}

std::string group_of_key(const SeriesKey& key) {
  std::string id, ranks;
  for (const auto& [name, value] : key) {
    if (name == kGroupKey) id = value;
    if (name == kGroupRanksKey) ranks = value;
  }
  return id.empty() ? "" : group_label(id, ranks);
}

}  // namespace collbench::summarize
