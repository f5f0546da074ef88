#include "summarize/nccl_table.h"

#include <cstdio>
#include <cstdlib>
#include <optional>

#include "report/table.h"
#include "summarize/series.h"

namespace collbench::summarize {
namespace {

bool same_case(const report::ResultRow& a, const report::ResultRow& b) {
  return a.bytes == b.bytes && a.dtype == b.dtype && a.op == b.op && a.root == b.root && a.cycle == b.cycle;
}

std::string describe_run(const report::Report& report) {
  std::string text = "from report";
  if (const auto it = report.context.options.find("iterations"); it != report.context.options.end()) {
    text += "; iterations " + it->dump();
  }
  if (const auto it = report.context.options.find("time_aggregation"); it != report.context.options.end() && it->is_string()) {
    text += "; iteration time = " + it->get<std::string>() + " over ranks";
  }
  return text;
}

}  // namespace

std::string nccl_table_text(const std::vector<LoadedReport>& reports) {
  // TableWriter writes to a FILE*; a memory stream collects its output without a temporary file.
  char* buffer = nullptr;
  std::size_t size = 0;
  std::FILE* stream = open_memstream(&buffer, &size);
  if (!stream) return "";
  report::TableWriter writer(stream);
  for (const auto& loaded : reports) {
    const auto& rows = loaded.report.results;
    writer.header(loaded.report, describe_run(loaded.report));
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const report::ResultRow* out_of_place = rows[i].placement == "out" ? &rows[i] : nullptr;
      const report::ResultRow* in_place = rows[i].placement == "in" ? &rows[i] : nullptr;
      if (out_of_place && i + 1 < rows.size() && rows[i + 1].placement == "in" && same_case(rows[i], rows[i + 1])) {
        in_place = &rows[++i];
      }
      writer.line(out_of_place, in_place);
    }
    for (const auto& skipped : loaded.report.skipped) writer.skipped(skipped);
    writer.footer(loaded.report, loaded.path);
    if (loaded.partial()) {
      std::fprintf(stream, "# PARTIAL report%s\n#\n", loaded.report.error.empty() ? "" : (": " + report::printable(loaded.report.error)).c_str());
    }
  }
  std::fclose(stream);
  std::string text(buffer, size);
  std::free(buffer);
  return text;
}

namespace {

nlohmann::json optional_cell(const std::optional<double>& value) { return value ? nlohmann::json(*value) : nlohmann::json(nullptr); }

// Any kind's rows through its spec: key fields, size, mean time, figures and #wrong.
Document rows_document(const std::vector<LoadedReport>& reports) {
  const report::RowKindSpec& kind = kind_of(reports);
  Table table;
  table.title = std::string("Results (") + kind.name + " rows)";
  table.group_columns = {"report", "benchmark", "world_size", "status"};
  for (const char* field : kind.key_fields) table.columns.push_back({field});
  table.columns.push_back({kind.size_column});
  if (kind.time_path) table.columns.push_back({"time_us", 2});
  for (const auto& figure : kind.figures) table.columns.push_back({figure.path, 3});
  table.columns.push_back({"wrong"});
  for (const auto& loaded : reports) {
    const auto& report = loaded.report;
    Table::Group group{{loaded.path, report.benchmark, report.context.world_size, report.status}, {}};
    for (const auto& row : report.rows) {
      std::vector<nlohmann::json> cells;
      for (const auto& key : row.keys) cells.emplace_back(key.second);
      cells.push_back(size_cell(row));
      if (kind.time_path) cells.push_back(optional_cell(row.time_us));
      for (const auto& figure : row.figures) cells.push_back(optional_cell(figure));
      cells.push_back(row.wrong ? nlohmann::json(*row.wrong) : nlohmann::json(nullptr));
      group.rows.push_back(std::move(cells));
    }
    table.groups.push_back(std::move(group));
  }
  Document document;
  document.tables.push_back(std::move(table));
  return document;
}

}  // namespace

Document nccl_table_document(const std::vector<LoadedReport>& reports) {
  if (kind_of(reports).kind != report::RowKind::kCollective) return rows_document(reports);
  Table table;
  table.title = "Results";
  table.group_columns = {"report", "benchmark", "world_size", "status"};
  table.columns = {{"bytes"},         {"count"},          {"dtype"},          {"op"},    {"root"},
                   {"placement"},     {"algorithm"},      {"time_us", 2},     {"algbw_gbps", 3},
                   {"busbw_gbps", 3}, {"wrong"}};
  for (const auto& loaded : reports) {
    const auto& report = loaded.report;
    Table::Group group{{loaded.path, report.benchmark, report.context.world_size, report.status}, {}};
    for (const auto& row : report.results) {
      group.rows.push_back({row.bytes, row.count, row.dtype, row.op, row.root, row.placement, row.algorithm, row.time_us.mean,
                            row.algbw_gbps, row.busbw_gbps ? nlohmann::json(*row.busbw_gbps) : nlohmann::json(nullptr),
                            row.wrong ? nlohmann::json(*row.wrong) : nlohmann::json(nullptr)});
    }
    table.groups.push_back(std::move(group));
  }
  Document document;
  document.tables.push_back(std::move(table));
  return document;
}

Document report_summary_document(const std::vector<LoadedReport>& reports) {
  const std::string rate = kind_of(reports).figures.front().path;
  Table table;
  table.title = "Summary";
  table.columns = {{"benchmark"}, {"world_size"}, {"status"}, {"rows"}, {"avg_" + rate, 3}, {"max_" + rate, 3}, {"wrong"}, {"report"}};
  Table::Group group;
  for (const auto& loaded : reports) {
    // The mean and peak over rows that have the headline figure (nccl-tests' footer for busbw).
    std::optional<double> total, peak;
    int with_rate = 0, checked = 0;
    std::int64_t wrong_total = 0;
    for (const auto& row : loaded.report.rows) {
      if (const auto value = headline(row)) {
        total = total.value_or(0) + *value;
        peak = std::max(peak.value_or(0), *value);
        ++with_rate;
      }
      if (row.wrong) {
        wrong_total += *row.wrong;
        ++checked;
      }
    }
    group.rows.push_back({loaded.report.benchmark, loaded.report.context.world_size, loaded.report.status, loaded.report.rows.size(),
                          total ? nlohmann::json(*total / with_rate) : nlohmann::json(nullptr), optional_cell(peak),
                          checked > 0 ? nlohmann::json(wrong_total) : nlohmann::json("not checked"), loaded.path});
  }
  table.groups.push_back(std::move(group));
  Document document;
  document.tables.push_back(std::move(table));
  return document;
}

}  // namespace collbench::summarize
