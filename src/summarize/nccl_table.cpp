#include "summarize/nccl_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>

#include "report/table.h"
#include "summarize/plot.h"
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

std::string health_of(const LoadedReport& loaded) {
  std::vector<std::string> findings;
  if (loaded.partial()) findings.push_back("partial report");
  // Out-of-place rows of the first dtype and op in size order: the sweep's own curve.
  std::vector<const report::ResultRow*> curve;
  for (const auto& row : loaded.report.results) {
    if (row.placement == "in" || row.cycle != 1) continue;
    if (!curve.empty() && (row.dtype != curve.front()->dtype || row.op != curve.front()->op || row.root != curve.front()->root)) continue;
    curve.push_back(&row);
  }
  std::sort(curve.begin(), curve.end(), [](const auto* a, const auto* b) { return a->bytes < b->bytes; });
  std::int64_t wrong = 0;
  for (const auto& row : loaded.report.results) wrong += row.wrong.value_or(0);
  if (wrong > 0) findings.push_back(std::to_string(wrong) + " wrong elements");
  // Bandwidth that falls at the large end: the largest size well below the peak.
  const report::ResultRow* peak = nullptr;
  for (const auto* row : curve) {
    if (row->busbw_gbps && (!peak || *row->busbw_gbps > *peak->busbw_gbps)) peak = row;
  }
  if (peak && curve.back()->busbw_gbps && curve.back() != peak && *curve.back()->busbw_gbps < 0.7 * *peak->busbw_gbps) {
    char text[160];
    std::snprintf(text, sizeof text, "busbw falls with size: %.3g GB/s at %s, %.3g at %s", *peak->busbw_gbps, size_tick_label(peak->bytes).c_str(),
                  *curve.back()->busbw_gbps, size_tick_label(curve.back()->bytes).c_str());
    findings.push_back(text);
  }
  // One size far off its neighbours: more than twice the time of both the smaller and the larger.
  for (std::size_t i = 1; i + 1 < curve.size(); ++i) {
    const double before = curve[i - 1]->time_us.mean, here = curve[i]->time_us.mean, after = curve[i + 1]->time_us.mean;
    if (before > 0 && after > 0 && here > 2 * before && here > 2 * after) {
      char text[160];
      std::snprintf(text, sizeof text, "%s takes %.1fx its larger neighbour's time", size_tick_label(curve[i]->bytes).c_str(), here / after);
      findings.push_back(text);
    }
  }
  if (findings.empty()) return "ok";
  std::string text;
  for (const auto& finding : findings) text += (text.empty() ? "" : "; ") + finding;
  return "check: " + text;
}

namespace {

// The table writers write to a FILE*; a memory stream collects what `write` prints without a
// temporary file.
std::string written_text(const std::function<void(std::FILE*)>& write) {
  char* buffer = nullptr;
  std::size_t size = 0;
  std::FILE* stream = open_memstream(&buffer, &size);
  if (!stream) return "";
  write(stream);
  std::fclose(stream);
  std::string text(buffer, size);
  std::free(buffer);
  return text;
}

// A partial report's line under its table.
void print_partial(std::FILE* stream, const LoadedReport& loaded) {
  if (!loaded.partial()) return;
  const std::string& error = loaded.report.error;
  std::fprintf(stream, "# PARTIAL report%s\n", error.empty() ? "" : (": " + report::printable(error)).c_str());
}

}  // namespace

std::string nccl_table_text(const std::vector<LoadedReport>& reports) {
  return written_text([&](std::FILE* stream) {
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
        print_partial(stream, loaded);
        std::fprintf(stream, "#\n");
      }
    }
  });
}

std::string kind_table_text(const std::vector<LoadedReport>& reports) {
  return written_text([&](std::FILE* stream) {
    for (const auto& loaded : reports) {
      const auto& report = loaded.report;
      std::fprintf(stream, "# %s: %d rank(s), %s; from report %s\n", report::printable(report.benchmark).c_str(),
                   report.context.world_size, report::printable(report.status).c_str(), report::printable(loaded.path).c_str());
      report::KindTableWriter writer(stream, report::row_kind_spec(report.kind));
      writer.header();
      for (const auto& row : report.rows) writer.line(row);
      print_partial(stream, loaded);
      std::fprintf(stream, "#\n");
    }
  });
}

namespace {

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
      if (kind.time_path) cells.push_back(report::json_or_null(row.time_us));
      for (const auto& figure : row.figures) cells.push_back(report::json_or_null(figure));
      cells.push_back(report::json_or_null(row.wrong));
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
                            row.algbw_gbps, report::json_or_null(row.busbw_gbps), report::json_or_null(row.wrong)});
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
  const bool collective = reports.front().report.kind == report::RowKind::kCollective;
  table.columns = {{"benchmark"}, {"world_size"}, {"status"}, {"rows"}, {"avg_" + rate, 3}, {"max_" + rate, 3}, {"wrong"}, {"report"}};
  if (collective) table.columns.insert(table.columns.end(), {{"peak_at"}, {"health"}});
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
                          total ? nlohmann::json(*total / with_rate) : nlohmann::json(nullptr), report::json_or_null(peak),
                          checked > 0 ? nlohmann::json(wrong_total) : nlohmann::json("not checked"), loaded.path});
    if (collective) {
      const report::ResultRow* best = nullptr;
      for (const auto& row : loaded.report.results) {
        if (row.busbw_gbps && (!best || *row.busbw_gbps > *best->busbw_gbps)) best = &row;
      }
      group.rows.back().push_back(best ? nlohmann::json(size_tick_label(best->bytes)) : nlohmann::json(nullptr));
      group.rows.back().push_back(health_of(loaded));
    }
  }
  table.groups.push_back(std::move(group));
  Document document;
  document.tables.push_back(std::move(table));
  return document;
}

}  // namespace collbench::summarize
