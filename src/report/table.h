// The nccl-tests table on stdout: one line per size with out-of-place and in-place columns.
#pragma once

#include <cstdio>
#include <string>

#include "report/report.h"

namespace collbench::report {

// Report text as it may reach a terminal: control characters (newlines, escape sequences) become
// '?', so a report's strings can neither forge table lines nor drive the terminal.
std::string printable(const std::string& text);

class TableWriter {
 public:
  explicit TableWriter(std::FILE* out) : out_(out) {}
  void header(const Report& report, const std::string& sweep_description);
  // Either side may be nullptr (not run or skipped).
  void line(const ResultRow* out_of_place, const ResultRow* in_place);
  void skipped(const SkippedCase& skipped_case);
  void footer(const Report& report, const std::string& report_path);

 private:
  std::FILE* out_;
};

}  // namespace collbench::report
