#include "harness/report_writer.h"

#include "harness/context.h"

namespace collbench {

void ReportWriter::open(const std::string& path, bool overwrite) {
  std::lock_guard<std::mutex> lock(mutex_);
  file_.emplace(path, overwrite);
}

void ReportWriter::save(nlohmann::json document) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (ended_) return;
  document_ = std::move(document);
  if (file_) file_->write(document_);
}

void ReportWriter::update(const std::function<void(nlohmann::json&)>& change) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (ended_ || !document_.is_object()) return;
  change(document_);
  if (file_) file_->write(document_);
}

nlohmann::json ReportWriter::snapshot() {
  std::lock_guard<std::mutex> lock(mutex_);
  return document_;
}

void ReportWriter::complete() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!file_ || ended_ || !document_.is_object()) return;
  document_["status"] = "complete";
  document_["context"]["end_time"] = utc_timestamp_now();
  file_->write(document_);
}

void ReportWriter::record_error(const std::string& error) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (ended_) return;
  ended_ = true;
  recorded_error_ = error;
  if (!file_ || !document_.is_object() || document_.value("status", "") == "complete") return;
  document_["error"] = error;
  if (document_.contains("context") && document_["context"].is_object()) {
    document_["context"]["end_time"] = utc_timestamp_now();
  }
  try {
    file_->write(document_);
  } catch (const std::exception&) {
    // The report as last written stays: valid, partial, with the rows it had then.
  }
}

std::string ReportWriter::recorded_error() {
  std::lock_guard<std::mutex> lock(mutex_);
  return recorded_error_;
}

}  // namespace collbench
