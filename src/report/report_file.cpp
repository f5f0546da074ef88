#include "report/report_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "core/error.h"
#include "report/report_json.h"

namespace collbench::report {
namespace {

std::string folder_of(const std::string& path) {
  const auto parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

}  // namespace

ReportFile::ReportFile(std::string path, bool overwrite) : path_(std::move(path)) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path_, ignored)) throw UsageError("report path '" + path_ + "' is a directory");
  if (!overwrite && std::filesystem::exists(path_, ignored)) {
    throw UsageError("report '" + path_ + "' already exists; choose another path or pass --overwrite");
  }
  const std::string folder = folder_of(path_);
  if (!std::filesystem::is_directory(folder, ignored)) {
    throw UsageError("cannot write report '" + path_ + "': folder '" + folder + "' does not exist");
  }
  if (::access(folder.c_str(), W_OK) != 0) {
    throw UsageError("cannot write report '" + path_ + "': folder '" + folder + "' is not writable");
  }
}

void write_json_atomically(const std::string& path, const nlohmann::json& document) {
  // Named per process and thread: the job watchdog's thread may rewrite the report while the main
  // thread is writing it, and the two temporaries must not be one file.
  const std::string temporary = path + ".tmp." + std::to_string(::getpid()) + "." +
                                std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << document.dump(2) << '\n';
    out.flush();
    if (!out) {
      std::remove(temporary.c_str());
      throw Error("cannot write report '" + temporary + "': " + std::strerror(errno));
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(temporary.c_str());
    throw Error("cannot move report into place at '" + path + "': " + reason);
  }
}

void ReportFile::write(const Report& report) const { write_json_atomically(path_, to_json(report)); }

}  // namespace collbench::report
