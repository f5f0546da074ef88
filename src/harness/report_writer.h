// The one writer of a run's report: rank 0 with -J writes it, every other rank holds a writer
// that writes nothing. It holds the report as the run builds it: the program replaces it whole
// (save) or changes it in place as rows complete (update), and report::ReportFile decides when
// that reaches the disk (routine saves batched by their cost, endings at once). The shell, the job
// watchdog and the interrupt watcher record why a run stopped; the first such error wins and ends
// saving, so that a save racing with the end of the process cannot erase the reason, and the
// report it writes holds every row completed so far.
#pragma once

#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "report/report_file.h"

namespace collbench {

class ReportWriter {
 public:
  // Claims `path` for this run (report::ReportFile: exclusive unless `overwrite`); throws
  // UsageError with the reason. Until then, and on ranks other than 0, nothing is written.
  void open(const std::string& path, bool overwrite);
  std::string path() const { return file_ ? file_->path() : std::string(); }

  // The report is held whether or not it is written (-J), so the program can read it back.
  void save(nlohmann::json document);
  // Changes the held report in place (append a row, refresh the summary): O(1) per row where a
  // whole save would rebuild every row.
  void update(const std::function<void(nlohmann::json&)>& change);
  // A copy of the report as held now.
  nlohmann::json snapshot();
  // The one place a report becomes "complete" (with its end time): the shell calls it when the
  // driver's measure() has returned, so no program marks its own report.
  void complete();
  // Thread-safe: writes the report as held now with `error` set and "status" left "partial".
  void record_error(const std::string& error);
  // The error recorded first ("" when none): the one the report keeps.
  std::string recorded_error();

 private:
  std::mutex mutex_;
  std::optional<report::ReportFile> file_;
  nlohmann::json document_;
  std::string recorded_error_;
  bool ended_ = false;
};

}  // namespace collbench
