// Reading reports for the summarizer: files or folders in, validated Report structs out.
#pragma once

#include <string>
#include <vector>

#include "report/report.h"

namespace collbench::summarize {

struct LoadedReport {
  std::string path;
  report::Report report;
  bool partial() const { return report.status != "complete"; }
};

// Each argument is a report file or a folder, searched recursively for *.json files (sorted by
// path, so output does not depend on directory order). Throws InputError with one sentence for a
// missing path, a file that is not a collbench report, or nothing to read at all.
std::vector<LoadedReport> load_reports(const std::vector<std::string>& paths);

// Throws InputError when the reports hold no result rows at all.
void require_rows(const std::vector<LoadedReport>& reports);

// Throws InputError when the reports are of more than one benchmark (where one is expected).
std::string require_single_benchmark(const std::vector<LoadedReport>& reports);

// Throws InputError when the reports hold rows of more than one kind (gemm and collective, ...):
// their rows have different keys and figures and cannot share a table, a comparison or a plot.
void require_single_kind(const std::vector<LoadedReport>& reports);

// One note per partial report, so a table built from them says it is incomplete.
std::vector<std::string> partial_notes(const std::vector<LoadedReport>& reports);

}  // namespace collbench::summarize
