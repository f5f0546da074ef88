// Writing a report to disk: atomically, and never replacing a file the user did not ask us to.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "report/report.h"

namespace collbench::report {

// The one report writer of every program (collectives, compute, copy_perf, the job watchdog):
// writes `document` to a temporary file beside `path`, then renames it over `path`, so a reader
// never sees half a report. Throws Error when the disk refuses.
void write_json_atomically(const std::string& path, const nlohmann::json& document);

class ReportFile {
 public:
  // Checks now that `path` can be written: it must not exist unless `overwrite`, and its folder
  // must exist and be writable. Throws UsageError with the reason.
  ReportFile(std::string path, bool overwrite);

  // Writes the whole report with write_json_atomically.
  void write(const Report& report) const;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace collbench::report
