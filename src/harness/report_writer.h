// The one writer of a run's report: rank 0 with -J writes it, every other rank holds a writer
// that writes nothing. The program saves the whole report as rows complete; the shell, the job
// watchdog and the interrupt watcher record why a run stopped. The first such error wins and ends
// saving, so that a save racing with the end of the process cannot erase the reason.
#pragma once

#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

namespace collbench {

class ReportWriter {
 public:
  // From now on save() writes to `path` (checked by the shell beforehand); empty: writes nothing.
  void open(std::string path);
  bool is_open() const { return !path_.empty(); }
  const std::string& path() const { return path_; }

  void save(const nlohmann::json& document);
  // Thread-safe: keeps the last saved report with `error` set and "status" left "partial".
  void record_error(const std::string& error);

 private:
  std::mutex mutex_;
  std::string path_;
  nlohmann::json last_saved_;
  bool ended_ = false;
};

}  // namespace collbench
