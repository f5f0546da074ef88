// Reads one report through collbench::report::read_report_file, the reader every tool uses, and
// says in one line what it found: "status=partial rows=3 error=..." (exit 0), or why the file is
// not a report (exit 2). The reliability tests use it on reports left by killed jobs and on
// deliberately malformed files.
#include <cstdio>
#include <exception>
#include <string>

#include "report/report_json.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: report_probe REPORT.json\n");
    return 2;
  }
  try {
    const collbench::report::Report report = collbench::report::read_report_file(argv[1]);
    std::printf("status=%s rows=%zu error=%s\n", report.status.c_str(), report.rows.size(),
                report.error.empty() ? "-" : report.error.c_str());
    return 0;
  } catch (const collbench::report::ReportFormatError& e) {
    std::fprintf(stderr, "report_probe: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "report_probe: unexpected failure: %s\n", e.what());
    return 1;
  }
}
