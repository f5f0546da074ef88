// Writing a report to disk: atomically, never replacing a file the user did not ask us to, and
// without a cost that grows with the square of the row count.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <tuple>

#include <nlohmann/json.hpp>

namespace collbench::report {

// JSON text of `document`. Text that is not valid UTF-8 (a Latin-1 byte in a tag, a file name or
// an environment variable) never stops a run: its bad bytes become U+FFFD, and `replaced` (when
// given) says so.
std::string json_text(const nlohmann::json& document, int indent = -1, bool* replaced = nullptr);

// The one report writer of every program (collectives, compute, copy_perf, the job watchdog):
// writes `document` to a short-named temporary file in the same folder, then renames it over
// `path`, so a reader never sees half a report. Throws Error with the system's reason (a full
// disk, say) and leaves no temporary file behind. A document whose text needed U+FFFD gets a
// warning saying so. With `only_if_absent` the file is published only where `path` names nothing
// (Error with exit code 2 otherwise): a new report never replaces another writer's.
void write_json_atomically(const std::string& path, const nlohmann::json& document, bool only_if_absent = false);

// Which file a path names: device, inode and change time (see identity_of in report_file.cpp).
using FileIdentity = std::tuple<dev_t, ino_t, long long, long>;

// A report path owned by this run from start to end.
class ReportFile {
 public:
  // Claims `path` now: without `overwrite` it must not exist, and a hidden claim file beside it
  // (.collbench-claim-HASH of the name) is created exclusively (O_EXCL), so of two runs given one path the
  // second fails here; its folder must exist and be writable. Throws UsageError with the reason.
  // Nothing appears at `path` before the first whole report.
  ReportFile(std::string path, bool overwrite);
  // The claim is given back (removed) after the first write, or here, so a run that stopped before
  // measuring leaves nothing behind.
  ~ReportFile();
  ReportFile(const ReportFile&) = delete;
  ReportFile& operator=(const ReportFile&) = delete;

  // Writes the whole report with write_json_atomically. A partial report without an error is the
  // routine after-each-row save: it is written only once enough time has passed since the last
  // write (twenty times what that write cost), so 20,000 rows cost about as much as their
  // measurement instead of 20,000 whole rewrites. A complete report, or one with an error, is
  // always written at once, so every completed row is on disk when a run ends or fails; only a
  // process killed outright (SIGKILL) can lose the rows of the last interval.
  // Throws Error (exit code 2) when another writer replaced the file since our last write.
  void write(const nlohmann::json& document);

  const std::string& path() const { return path_; }

 private:
  void check_still_ours() const;
  void release_claim();
  // True when a routine save comes too soon after the last write and is skipped.
  bool routine_write_skipped(bool routine) const;

  std::string path_;
  bool written_ = false;
  std::optional<FileIdentity> ours_;  // the file we last put at path_
  std::string claim_path_;
  std::optional<FileIdentity> claim_;  // our claim file, until the first write
  std::chrono::steady_clock::time_point next_routine_write_{};
};

}  // namespace collbench::report
