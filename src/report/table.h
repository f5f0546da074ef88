// The nccl-tests table on stdout: one line per size with out-of-place and in-place columns.
#pragma once

#include <cstdio>
#include <functional>
#include <string>

#include "core/printable.h"
#include "report/report.h"

namespace collbench::report {

// Report text as it may reach a terminal (core/printable.h): a report's strings can neither forge
// table lines nor drive the terminal.
using collbench::printable;

// The table writers write to a FILE*; a memory stream collects what `write` prints without a
// temporary file.
std::string written_text(const std::function<void(std::FILE*)>& write);

// A matrix under a table (row = first rank or source GPU, column = peer): each line "#  " and a
// 10-wide cell per column, "-" where nothing was measured.
std::string matrix_text(const nlohmann::json& matrix);

// nccl-tests' optional columns: -C prints the host's issue time instead of the completion time,
// -S appends a time stamp to each line.
struct TableColumns {
  bool issue_time = false;
  bool timestamps = false;
  bool bitdiff = false;  // -B: a #bitdiff column after #wrong (off: nccl-tests' table exactly)
};

class TableWriter {
 public:
  explicit TableWriter(std::FILE* out, TableColumns columns = {}) : out_(out), columns_(columns) {}
  // The header and footer read the one envelope as written (report_json.h's envelope_json): the
  // live run's report as the driver holds it, or one `collbench table` read; the footer its summary.
  void header(const nlohmann::json& envelope, const std::string& sweep_description);
  // One size's collective rows as the report holds them; either side may be nullptr (not run or skipped).
  void line(const nlohmann::json* out_of_place, const nlohmann::json* in_place);
  void skipped(const SkippedCase& skipped_case);
  void footer(const nlohmann::json& envelope, const std::string& report_path);

 private:
  std::FILE* out_;
  TableColumns columns_;
};

// Every other kind's table, drawn from its spec's columns (RowKindSpec::table): the live table of
// matmul, membw, copy, envcheck and ddp_step_perf, and `collbench table`'s text for their reports.
class KindTableWriter {
 public:
  KindTableWriter(std::FILE* out, const RowKindSpec& kind) : out_(out), kind_(kind) {}
  void header();
  void line(const Row& row);

 private:
  std::FILE* out_;
  const RowKindSpec& kind_;
};

}  // namespace collbench::report
