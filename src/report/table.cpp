#include "report/table.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "report/report_json.h"

namespace collbench::report {
namespace {

// A collective row's field as nccl-tests prints it: absent and null alike are "not measured".
const nlohmann::json* defined(const nlohmann::json& row, const char* key) {
  const auto it = row.find(key);
  return it == row.end() || it->is_null() ? nullptr : &*it;
}

// One placement's columns of a collective row as the report holds it (report_read.cpp checked it).
void print_half(std::FILE* out, const nlohmann::json* row, bool issue_time, bool bitdiff_column) {
  if (!row) {
    std::fprintf(out, "  %9s  %7s  %7s  %6s", "-", "-", "-", "-");
  } else {
    char time[32], busbw[32], wrong[32];
    const nlohmann::json* issue_us = defined(*row, "issue_us");
    if (issue_time && !issue_us) std::snprintf(time, sizeof(time), "%9s", "n/a");
    else std::snprintf(time, sizeof(time), "%9.2f", (issue_time ? *issue_us : row->at("time_us").at("mean")).get<double>());
    if (const auto* value = defined(*row, "busbw_gbps")) std::snprintf(busbw, sizeof(busbw), "%7.2f", value->get<double>());
    else std::snprintf(busbw, sizeof(busbw), "%7s", "n/a");
    if (const auto* value = defined(*row, "wrong")) std::snprintf(wrong, sizeof(wrong), "%6lld", value->get<long long>());
    else std::snprintf(wrong, sizeof(wrong), "%6s", "N/A");
    std::fprintf(out, "  %s  %7.2f  %s  %s", time, row->at("algbw_gbps").get<double>(), busbw, wrong);
  }
  if (!bitdiff_column) return;
  if (const auto* bitdiff = row ? defined(*row, "bitdiff") : nullptr) std::fprintf(out, "  %8lld", bitdiff->get<long long>());
  else std::fprintf(out, "  %8s", row ? "N/A" : "-");
}

// One placement's columns ("  time  algbw  busbw  #wrong") are 37 characters wide, 47 with "  #bitdiff".
std::string centered_over_half(const std::string& label, bool bitdiff_column) {
  const std::size_t kHalfWidth = bitdiff_column ? 47 : 37;
  const std::size_t left = (kHalfWidth - label.size()) / 2;
  return std::string(left, ' ') + label + std::string(kHalfWidth - left - label.size(), ' ');
}

}  // namespace

void TableWriter::header(const nlohmann::json& envelope, const std::string& sweep_description) {
  const nlohmann::json& context = envelope.at("context");
  const nlohmann::json& versions = context.value("versions", nlohmann::json::object());
  std::fprintf(out_, "# collbench %s: %s_perf, backend %s, %d rank(s) on %zu host(s)\n",
               printable(versions.value("collbench", "?")).c_str(), printable(envelope.value("benchmark", "")).c_str(),
               printable(context.value("backend", "")).c_str(), context.value("world_size", 1),
               context.value("hosts", nlohmann::json::array()).size());
  // One "# " line per line of the description (sweep, then the estimator).
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = sweep_description.find('\n', start);
    std::fprintf(out_, "# %s\n", printable(sweep_description.substr(start, end - start)).c_str());
    if (end == std::string::npos) break;
    start = end + 1;
  }
  std::fprintf(out_, "#\n# Using devices\n");
  for (const nlohmann::json& rank : context.value("ranks", nlohmann::json::array())) {
    std::fprintf(out_, "#  Rank %2d Pid %7lld on %10s device %s\n", rank.value("rank", 0), rank.value("pid", 0LL),
                 printable(rank.value("host", "")).c_str(), printable(rank.value("device", "")).c_str());
  }
  std::fprintf(out_, "#\n");
  if (columns_.issue_time) {
    std::fprintf(out_, "# time: the host's time to issue one call (-C 1), not its completion; algbw and busbw use the completion time\n");
  }
  const bool bits = columns_.bitdiff;
  std::fprintf(out_, "# %10s  %12s  %8s  %6s  %5s%s%s\n", "", "", "", "", "", centered_over_half("out-of-place", bits).c_str(),
               centered_over_half("in-place", bits).c_str());
  if (!bits) {
    std::fprintf(out_, "# %10s  %12s  %8s  %6s  %5s  %9s  %7s  %7s  %6s  %9s  %7s  %7s  %6s\n", "size", "count", "type",
                 "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
    std::fprintf(out_, "# %10s  %12s  %8s  %6s  %5s  %9s  %7s  %7s  %6s  %9s  %7s  %7s  %6s\n", "(B)", "(elements)", "",
                 "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
  } else {
    std::fprintf(out_, "# %10s  %12s  %8s  %6s  %5s  %9s  %7s  %7s  %6s  %8s  %9s  %7s  %7s  %6s  %8s\n", "size", "count",
                 "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "#bitdiff", "time", "algbw", "busbw", "#wrong",
                 "#bitdiff");
    std::fprintf(out_, "# %10s  %12s  %8s  %6s  %5s  %9s  %7s  %7s  %6s  %8s  %9s  %7s  %7s  %6s  %8s\n", "(B)",
                 "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "", "(us)", "(GB/s)", "(GB/s)", "", "");
  }
  std::fflush(out_);
}

void TableWriter::line(const nlohmann::json* out_of_place, const nlohmann::json* in_place) {
  const nlohmann::json* any = out_of_place ? out_of_place : in_place;
  if (!any) return;
  std::fprintf(out_, "  %10llu  %12llu  %8s  %6s  %5d", any->at("bytes").get<unsigned long long>(),
               any->at("count").get<unsigned long long>(), printable(any->at("dtype").get<std::string>()).c_str(),
               printable(any->at("op").get<std::string>()).c_str(), any->at("root").get<int>());
  print_half(out_, out_of_place, columns_.issue_time, columns_.bitdiff);
  print_half(out_, in_place, columns_.issue_time, columns_.bitdiff);
  if (columns_.timestamps) std::fprintf(out_, "  %s", printable((in_place ? in_place : any)->value("timestamp", "")).c_str());
  std::fprintf(out_, "\n");
  std::fflush(out_);
}

// A collective's "what" is its dtype, op and placement, as nccl-tests' skipped lines name them.
void TableWriter::skipped(const SkippedCase& skipped_case) {
  std::fprintf(out_, "# skipped: %s placement: %s\n", printable(skipped_case.what).c_str(), printable(skipped_case.reason).c_str());
}

void TableWriter::footer(const nlohmann::json& envelope, const std::string& report_path) {
  const BusBandwidthSummary summary = bus_bandwidth_summary_of(envelope.at("summary"));
  if (summary.rows_checked > 0) {
    std::fprintf(out_, "# Out of bounds values : %lld %s\n", static_cast<long long>(summary.wrong_total),
                 summary.wrong_total == 0 ? "OK" : "FAILED");
  } else {
    std::fprintf(out_, "# Out of bounds values : not checked (-c 0)\n");
  }
  if (summary.avg_busbw_gbps) {
    std::fprintf(out_, "# Avg bus bandwidth    : %g GB/s (mean over %d rows)\n", *summary.avg_busbw_gbps, summary.rows);
  } else if (envelope.at("context").value("world_size", 1) == 1) {
    std::fprintf(out_, "# Avg bus bandwidth    : not defined for 1 rank (no data crosses ranks; see algbw)\n");
  } else {
    std::fprintf(out_, "# Avg bus bandwidth    : no rows measured\n");
  }
  if (!report_path.empty()) std::fprintf(out_, "# Report               : %s\n", printable(report_path).c_str());
  std::fprintf(out_, "#\n");
  std::fflush(out_);
}

namespace {

int column_width(const TableColumnSpec& column) {
  return std::max<int>(column.width > 0 ? column.width : 8, static_cast<int>(std::string(column.header).size()));
}

// One cell as text. A value the column cannot show (absent, null, a string in a number column) is
// "n/a", or "N/A" for #wrong as nccl-tests prints an unchecked row.
std::string cell_text(const TableColumnSpec& column, const nlohmann::json& value) {
  using Style = TableColumnSpec::Style;
  const int width = column_width(column);
  const char* missing = std::string(column.path) == "wrong" ? "N/A" : "n/a";
  char text[64];
  switch (column.style) {
    case Style::kText: {
      if (!value.is_string() && !value.is_number()) return missing;
      const std::string shown = printable(value.is_string() ? value.get<std::string>() : value.dump());
      return shown.substr(0, static_cast<std::size_t>(width));
    }
    case Style::kFlag:
      return value.is_boolean() ? (value.get<bool>() ? "yes" : "no") : missing;
    case Style::kInteger:
      if (!value.is_number()) return missing;
      std::snprintf(text, sizeof text, "%.0f", value.get<double>() * column.scale);
      return text;
    case Style::kFixed:
    case Style::kScientific:
    case Style::kRatio:
      if (!value.is_number()) return missing;
      std::snprintf(text, sizeof text, column.style == Style::kScientific ? "%.*e" : "%.*f", column.precision,
                    value.get<double>() * column.scale);
      return column.style == Style::kRatio ? std::string(text) + "x" : std::string(text);
  }
  return missing;
}

// A cell padded to its column's width: text left-aligned, numbers right-aligned.
std::string padded(const TableColumnSpec& column, const char* text) {
  char cell[96];
  std::snprintf(cell, sizeof cell, column.style == TableColumnSpec::Style::kText ? " %-*s" : " %*s", column_width(column), text);
  return cell;
}

}  // namespace

// Text columns are left-aligned, numbers right-aligned, each at least its header's width.
void KindTableWriter::header() {
  std::string line = "#";
  for (const auto& column : kind_.table) line += padded(column, column.header);
  std::fprintf(out_, "%s\n", line.c_str());
  std::fflush(out_);
}

void KindTableWriter::line(const Row& row) {
  std::string line = " ";
  for (std::size_t i = 0; i < kind_.table.size(); ++i) {
    const auto& column = kind_.table[i];
    const nlohmann::json& value = i < row.table_cells.size() ? row.table_cells[i] : nlohmann::json();
    line += padded(column, cell_text(column, value).c_str());
  }
  std::fprintf(out_, "%s\n", line.c_str());
  std::fflush(out_);
}

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

std::string matrix_text(const nlohmann::json& matrix) {
  std::string text;
  for (const auto& line : matrix) {
    text += "#  ";
    for (const auto& cell : line) text += cell.is_null() ? formatted("%10s", "-") : formatted("%10.2f", cell.get<double>());
    text += "\n";
  }
  return text;
}

}  // namespace collbench::report
