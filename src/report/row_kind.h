// Row kinds: what a row identifies and what it measures, declared once per kind. Every command of
// the summarizer works from a kind's spec instead of from one kind's fields, so a GEMM or copy
// report is compared, tabled and plotted the way a collective one is.
//
// The report layer names no kind: each kind's folder declares its RowKind and defines its
// RowKindSpec in its report/ subfolder (src/workloads/<kind>/report/, on this layer and compiled
// into the report library by the kind's CMakeLists.txt), and the one line that registers the kind
// (COLLBENCH_KINDS, CMakeLists.txt) puts its specs in the table row_kind_spec searches
// (row_kinds.cpp, generated; docs/layout.md "Adding a workload kind").
#pragma once

#include <string_view>
#include <utility>
#include <vector>

namespace collbench::report {

// Which kind a row is: the name its rows carry under "kind" ("collective", "gemm", ...), compared
// by name. A kind's folder declares its own (kGemmRows in matmul/report/gemm_rows.h).
class RowKind {
 public:
  // A report not yet read is a collective's: a 1.x report whose benchmark no kind claims is one,
  // since every collective's program names its collective (row_kind_of_benchmark).
  constexpr RowKind() = default;
  constexpr explicit RowKind(const char* name) : name_(name) {}
  constexpr const char* name() const { return name_; }
  friend constexpr bool operator==(RowKind a, RowKind b) { return std::string_view(a.name_) == std::string_view(b.name_); }
  friend constexpr bool operator!=(RowKind a, RowKind b) { return !(a == b); }

 private:
  const char* name_ = "collective";
};

struct Report;

struct FigureSpec {
  const char* path;   // where the row holds it: "busbw_gbps", "probes.triad_gbps"
  const char* name;   // what users call it (plot --metric): "busbw"
  const char* label;  // axis label: "bus bandwidth (GB/s)"
  bool higher_is_better;
};

// One column of a kind's text table: the live table a program prints as rows complete and
// `collbench table`'s text form, both drawn by report/table.h's KindTableWriter.
struct TableColumnSpec {
  enum class Style { kText, kInteger, kFixed, kScientific, kRatio, kFlag };
  const char* path;    // where the row holds it: "time_us.mean", "spread.ratio"
  const char* header;  // "mean_us"
  Style style = Style::kFixed;
  int precision = 2;   // digits after the point (kFixed, kScientific, kRatio)
  int width = 0;       // 0: the header's width, at least 8; text longer than it is cut
  double scale = 1;    // shown value = stored value x scale (bytes shown as MB: 1e-6)
};

// What a report's "summary" holds, kept current by the driver as rows are added (RowSummary).
enum class SummaryForm {
  kRate,                 // rows, rows_checked, wrong_total, max_<headline> and, where the table shows one, worst_spread_ratio
  kBusBandwidth,         // nccl-tests' footer: avg_busbw_gbps (mean over rows), max_busbw_gbps, wrong_total, rows, rows_checked
  kSlowestCommunicator,  // comm_init: rows, the slowest method and size, its mean time
  kByWorkload,           // none from the rows: the workload writes its own (envcheck's recommendation)
};

struct RowKindSpec {
  const char* name;                         // the rows' "kind" value
  // The report's "benchmark" of the one program that writes this kind's rows, by which a 1.x
  // report (rows without "kind") is read; nullptr for the collectives, each program its own name.
  const char* benchmark;
  std::vector<const char*> key_fields;      // paths that identify a row besides its size, in display order
  std::vector<const char*> size_fields;     // paths whose product places a row on the size axis
  const char* size_column;                  // "bytes", "shape" (m x n x k), "rank"
  const char* size_label;                   // plot axis label
  bool size_is_magnitude;                   // sizes span decades: log axis (not so for a rank number)
  const char* time_path;                    // "time_us" (stats; mean used), or nullptr: no timings
  std::vector<FigureSpec> figures;          // figures[0] is the headline rate
  // The headline rate is the whole job's throughput (ddp_step: samples/s), so scaling's speedup is
  // the rate's ratio, which also holds when the work per rank changes with the world size.
  bool headline_is_job_throughput = false;
  std::vector<TableColumnSpec> table;  // the kind's text table, in order (empty for collectives: nccl-tests' table)
  // Fields renamed since older reports: {path now, path before}. A row without the path now is read
  // at the path before, by every reader (figures, table cells, the kind's own reader).
  std::vector<std::pair<const char*, const char*>> former_names = {};
  SummaryForm summary = SummaryForm::kRate;
  // The kind's reader view of what it writes beside the envelope (Report::kind_fields), run by
  // the reader so that a malformed report is refused when read; throws ReportFormatError. None:
  // nothing of its own to check.
  void (*check_kind_fields)(const Report& report) = nullptr;
  // Rows in the collectives' layout, which nccl-tests' table reads and the reader checks field by
  // field (the collectives and alltoallv, whose rows add the traffic).
  bool collective_layout = false;
  // Key fields added after reports were kept: {path, the value a row without it means} (replay's
  // "scale": "none"), so older rows are read as what they were.
  std::vector<std::pair<const char*, const char*>> key_defaults = {};

  RowKind kind() const { return RowKind(name); }
};

// The registered kind's spec; an unregistered kind is a programming error (std::logic_error).
const RowKindSpec& row_kind_spec(RowKind kind);
const RowKindSpec* find_row_kind(std::string_view name);   // nullptr for an unknown name
// A 1.x report has no per-row kind: its benchmark says which layout its rows have.
RowKind row_kind_of_benchmark(std::string_view benchmark);
// Rows in the collectives' layout (RowKindSpec::collective_layout).
bool has_collective_rows(RowKind kind);
// Every registered kind's spec, in COLLBENCH_KINDS order (row_kinds.cpp, generated).
const std::vector<const RowKindSpec*>& registered_row_kinds();

// What kinds' specs are made of: the table's bools named (FigureSpec::higher_is_better,
// RowKindSpec::size_is_magnitude and RowKindSpec::headline_is_job_throughput) and the columns
// every timed kind's table shares after its own.
namespace spec_parts {
using Style = TableColumnSpec::Style;
constexpr bool kHigherIsBetter = true, kLowerIsBetter = false;
constexpr bool kLogSizes = true, kLinearSizes = false;
constexpr bool kJobThroughput = true, kThroughputOfRanks = false;
constexpr bool kCollectiveLayout = true;  // RowKindSpec::collective_layout
// The mean, fastest and slowest time, the ranks' spread and the check.
inline const TableColumnSpec kMeanUs{"time_us.mean", "mean_us", Style::kFixed, 1, 12};
inline const TableColumnSpec kMinUs{"time_us.min", "min_us", Style::kFixed, 1, 12};
inline const TableColumnSpec kMaxUs{"time_us.max", "max_us", Style::kFixed, 1, 12};
inline const TableColumnSpec kSpread{"spread.ratio", "spread", Style::kRatio, 3, 9};
inline const TableColumnSpec kWrong{"wrong", "#wrong", Style::kInteger, 0, 6};
// copy and STREAM rows: "yes" where the working set fits in the cache, so the GB/s are the cache's.
inline const TableColumnSpec kCacheResident{"cache_resident", "cache", Style::kFlag, 0, 6};
}  // namespace spec_parts

}  // namespace collbench::report
