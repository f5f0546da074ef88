// The JSON form of a report, both ways: one writer (report_write.cpp) and one reader
// (report_read.cpp). Reading validates: a bad file gives one clear sentence.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/report.h"

namespace collbench::report {

// A report file that is missing, unreadable, not JSON, or not a collbench report of a known schema.
class ReportFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ===== Writing (report_write.cpp) =========================================================
// A row's time statistics, as every kind writes them under "time_us".
nlohmann::json stats_to_json(const TimeStats& stats);
// The one envelope every report kind starts from: schema_version, benchmark, status "partial",
// context and no results yet. A kind adds its own fields beside them (platform, link_matrix), and
// "skipped" where it has cases it may skip.
nlohmann::json envelope_json(const std::string& benchmark, const Context& context);
// A report as read, written again: its rows as they were read, the summary made from them.
nlohmann::json to_json(const Report& report);
// The one row writer: `fields` (what the kind identifies and measures) with the kind's name and
// how the row was measured, under the same keys in every timed kind; a kind without timings (no
// time_path: envcheck's probes) writes no measurement. Every workload builds its row's fields and
// calls it.
nlohmann::json row_json(RowKind kind, nlohmann::json fields, const Measurement& measured);
// A skipped case as every kind's "skipped" holds it: {what, reason} and the kind's own keys.
nlohmann::json to_json(const SkippedCase& skipped);
// context.state_probe: the driver writes it before the first row and again after the last.
nlohmann::json to_json(const StateProbeRecord& probe);
// The spread of a throughput row's ranks (matmul_perf, membw_perf) and of envcheck's probes.
nlohmann::json to_json(const ThroughputSpread& spread, const char* unit);  // unit: "gflops", "tflops" or "gbps"

// ===== Reading (report_read.cpp): every reader throws ReportFormatError ====================
Report report_from_json(const nlohmann::json& document);
Report read_report_file(const std::string& path);
// One row as the summarizer sees it, read through its kind's spec (a live table's row).
Row row_from_json(const nlohmann::json& row, RowKind kind);
// A collective report's summary (SummaryForm::kBusBandwidth: Report::summary, or the one a run
// keeps) as nccl-tests' footer and the --min-busbw gate read it.
BusBandwidthSummary bus_bandwidth_summary_of(const nlohmann::json& summary);

}  // namespace collbench::report
