#include "harness/report_writer.h"

#include "harness/context.h"
#include "report/report_file.h"

namespace collbench {

void ReportWriter::open(std::string path) {
  std::lock_guard<std::mutex> lock(mutex_);
  path_ = std::move(path);
}

void ReportWriter::save(const nlohmann::json& document) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (path_.empty() || ended_) return;
  report::write_json_atomically(path_, document);
  last_saved_ = document;
}

void ReportWriter::record_error(const std::string& error) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (ended_) return;
  ended_ = true;
  if (path_.empty() || !last_saved_.is_object() || last_saved_.value("status", "") == "complete") return;
  last_saved_["error"] = error;
  if (last_saved_.contains("context") && last_saved_["context"].is_object()) {
    last_saved_["context"]["end_time"] = utc_timestamp_now();
  }
  try {
    report::write_json_atomically(path_, last_saved_);
  } catch (const std::exception&) {
    // The report as last written stays: valid, partial, every completed row.
  }
}

}  // namespace collbench
