#include "summarize/verdicts/recordings.h"

#include <algorithm>
#include <filesystem>
#include <map>

namespace collbench::summarize {

std::string recording_of(const std::string& report_path) {
  const std::string prefix = kRecordingPrefix;
  for (auto folder = std::filesystem::path(report_path).parent_path(); !folder.empty(); folder = folder.parent_path()) {
    const std::string name = folder.filename().string();
    if (name.compare(0, prefix.size(), prefix) == 0) return name;
    if (folder == folder.parent_path()) break;  // the root
  }
  return "";
}

std::vector<Recording> recordings_of(const std::vector<LoadedReport>& reports) {
  std::map<std::string, Recording> by_name;
  for (const auto& loaded : reports) {
    const std::string name = recording_of(loaded.path);
    Recording& recording = by_name[name];
    recording.name = name;
    ++recording.reports;
    const std::string& started = loaded.report.context.start_time;
    if (recording.started.empty() || (!started.empty() && started < recording.started)) recording.started = started;
  }
  std::vector<Recording> out;
  for (auto& [name, recording] : by_name) out.push_back(std::move(recording));
  std::stable_sort(out.begin(), out.end(), [](const Recording& a, const Recording& b) { return a.started < b.started; });
  return out;
}

}  // namespace collbench::summarize
