#include "summarize/common/load.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "core/printable.h"
#include "report/report_json.h"
#include "summarize/common/input_error.h"

namespace collbench::summarize {

namespace fs = std::filesystem;

std::vector<LoadedReport> load_reports(const std::vector<std::string>& paths) {
  if (paths.empty()) throw InputError("no report given");
  std::vector<std::string> files;
  for (const auto& path : paths) {
    std::error_code error;
    if (fs::is_directory(path, error)) {
      std::vector<std::string> found;
      for (const auto& entry : fs::recursive_directory_iterator(path, error)) {
        if (entry.is_regular_file() && entry.path().extension() == ".json") found.push_back(entry.path().string());
      }
      if (found.empty()) throw InputError(path + ": folder holds no *.json report");
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::exists(path, error)) {
      files.push_back(path);
    } else {
      throw InputError(path + ": no such file or folder");
    }
  }
  std::vector<LoadedReport> reports;
  reports.reserve(files.size());
  for (const auto& file : files) {
    try {
      reports.push_back({file, report::read_report_file(file)});
    } catch (const report::ReportFormatError& e) {
      throw InputError(e.what());
    }
  }
  return reports;
}

void require_rows(const std::vector<LoadedReport>& reports) {
  for (const auto& loaded : reports) {
    if (!loaded.report.rows.empty()) return;
  }
  throw InputError(reports.size() == 1 ? reports.front().path + ": report has no result rows"
                                       : "none of the " + std::to_string(reports.size()) + " reports has result rows");
}

std::string require_single_benchmark(const std::vector<LoadedReport>& reports) {
  std::set<std::string> names;
  for (const auto& loaded : reports) names.insert(loaded.report.benchmark);
  if (names.size() > 1) {
    throw InputError("reports of different benchmarks (" + joined(names, ", ") + ") where one is expected");
  }
  return names.empty() ? "" : *names.begin();
}

void require_single_kind(const std::vector<LoadedReport>& reports) {
  for (const auto& loaded : reports) {
    if (loaded.report.kind == reports.front().report.kind) continue;
    throw InputError("reports of different kinds cannot be combined: " + reports.front().path + " has " +
                     report::row_kind_spec(reports.front().report.kind).name + " rows, " + loaded.path + " has " +
                     report::row_kind_spec(loaded.report.kind).name + " rows");
  }
}

std::vector<std::string> partial_notes(const std::vector<LoadedReport>& reports) {
  std::vector<std::string> notes;
  for (const auto& loaded : reports) {
    if (!loaded.partial()) continue;
    std::string note = "partial report " + loaded.path + " (" + std::to_string(loaded.report.rows.size()) + " rows";
    if (!loaded.report.error.empty()) note += "; stopped: " + loaded.report.error;
    notes.push_back(note + ")");
  }
  return notes;
}

}  // namespace collbench::summarize
