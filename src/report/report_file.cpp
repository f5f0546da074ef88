#include "report/report_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/error.h"
#include "core/printable.h"
#include "report/report_json.h"

namespace collbench::report {
namespace {

std::string folder_of(const std::string& path) {
  const auto parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

// A file's device and inode, plus its change time: a file removed and created anew can get the
// freed inode number back at once (ext4, tmpfs), but not the same change time to the nanosecond.
std::optional<FileIdentity> identity_of(const std::string& path) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) return std::nullopt;
  return FileIdentity{status.st_dev, status.st_ino, status.st_ctim.tv_sec, status.st_ctim.tv_nsec};
}

// Writes all of `text` to `fd`; false with errno set when the disk refuses (ENOSPC, EIO, ...).
bool write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t wrote = ::write(fd, text.data() + done, text.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) return false;
    done += static_cast<std::size_t>(wrote);
  }
  return true;
}

}  // namespace

std::string json_text(const nlohmann::json& document, int indent, bool* replaced) {
  if (replaced) *replaced = false;
  try {
    return document.dump(indent);
  } catch (const nlohmann::json::type_error&) {  // 316: invalid UTF-8
    if (replaced) *replaced = true;
    return document.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
  }
}

void write_json_atomically(const std::string& path, const nlohmann::json& document, bool only_if_absent) {
  bool replaced = false;
  std::string text = json_text(document, 2, &replaced);
  if (replaced && document.is_object()) {
    nlohmann::json marked = document;
    if (!marked["warnings"].is_array()) marked["warnings"] = nlohmann::json::array();
    marked["warnings"].push_back("text that was not valid UTF-8 (tags, file names or environment) is shown with U+FFFD "
                                 "in place of its bad bytes");
    text = json_text(marked, 2);
  }
  text += '\n';
  // A short name in the report's own folder: rename stays within one filesystem, and a report name
  // as long as the filesystem allows does not become too long with a suffix.
  std::string temporary = folder_of(path) + "/.collbench-XXXXXX";
  const int fd = ::mkstemp(temporary.data());
  if (fd < 0) throw Error("cannot write report '" + path + "': " + std::strerror(errno));
  const bool ok = write_all(fd, text) && ::fsync(fd) == 0 && ::fchmod(fd, 0644) == 0;  // mkstemp made it 0600
  const int write_errno = errno;
  if (::close(fd) != 0 || !ok) {
    const std::string reason = std::strerror(ok ? errno : write_errno);
    std::remove(temporary.c_str());
    throw Error("cannot write report '" + path + "': " + reason);
  }
  // link(2) publishes the file only where nothing is (EEXIST otherwise), rename(2) over anything:
  // either way a reader sees no report, or a whole one.
  const bool placed = only_if_absent ? ::link(temporary.c_str(), path.c_str()) == 0 : std::rename(temporary.c_str(), path.c_str()) == 0;
  const int place_errno = errno;
  if (!placed || only_if_absent) std::remove(temporary.c_str());
  if (!placed && place_errno == EEXIST) {
    // Error, not UsageError: only the writing rank sees this, and it must end the whole job.
    throw Error("report '" + path + "' was created by another writer while this run started; this run's report was not written there",
                ExitCode::kUsage);
  }
  if (!placed) throw Error("cannot move report into place at '" + path + "': " + std::strerror(place_errno));
}

ReportFile::ReportFile(std::string path, bool overwrite) : path_(std::move(path)) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path_, ignored)) throw UsageError("report path '" + path_ + "' is a directory");
  const std::string folder = folder_of(path_);
  if (!std::filesystem::is_directory(folder, ignored)) {
    throw UsageError("cannot write report '" + path_ + "': folder '" + folder + "' does not exist");
  }
  if (::access(folder.c_str(), W_OK) != 0) {
    throw UsageError("cannot write report '" + path_ + "': folder '" + folder + "' is not writable");
  }
  if (overwrite) return;
  const auto exists = [this] {
    return UsageError("report '" + path_ + "' already exists; choose another path or pass --overwrite");
  };
  struct stat status {};
  if (::lstat(path_.c_str(), &status) == 0) throw exists();
  // The claim is a hidden file beside the report, not an empty report: a reader of the folder (or
  // of the path) must see no report or a whole one, never an empty file (issue 64). Created
  // exclusively, it is the check that two runs given one path cannot both pass; the first write
  // then publishes the report only where nothing is yet (link), and the claim goes.
  // Named from a hash of the report's name: a report name as long as the filesystem allows fits.
  claim_path_ = folder_of(path_) + formatted("/.collbench-claim-%016zx", std::hash<std::string>{}(std::filesystem::path(path_).filename().string()));
  const int fd = ::open(claim_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0 && errno == EEXIST) {
    throw UsageError("report '" + path_ + "' already exists: another run is starting to write it (" + claim_path_ +
                     "; remove that file if none is); choose another path or pass --overwrite");
  }
  if (fd < 0) throw UsageError("cannot write report '" + path_ + "': " + std::strerror(errno));
  ::close(fd);
  claim_ = identity_of(claim_path_);
}

ReportFile::~ReportFile() { release_claim(); }

void ReportFile::release_claim() {
  if (claim_ && identity_of(claim_path_) == claim_) std::remove(claim_path_.c_str());
  claim_.reset();
}

void ReportFile::check_still_ours() const {
  if (ours_ && identity_of(path_) != ours_) {
    // Error, not UsageError: only the writing rank sees this, and it must end the whole job.
    throw Error("report '" + path_ + "' was replaced or removed by another writer; this run's report was not written there",
                ExitCode::kUsage);
  }
}

bool ReportFile::routine_write_skipped(bool routine) const {
  return routine && written_ && std::chrono::steady_clock::now() < next_routine_write_;
}

void ReportFile::write(const nlohmann::json& document) {
  if (routine_write_skipped(document.value("status", "") == "partial" && !document.contains("error"))) return;
  const auto now = std::chrono::steady_clock::now();
  check_still_ours();
  write_json_atomically(path_, document, claim_.has_value() && !written_);
  written_ = true;
  ours_ = identity_of(path_);
  release_claim();
  next_routine_write_ = now + 20 * (std::chrono::steady_clock::now() - now);
}

}  // namespace collbench::report
