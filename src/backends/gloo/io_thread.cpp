#include "backends/gloo/io_thread.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#ifdef __linux__
#include <sched.h>
#endif

namespace collbench::gloo_backend {

std::set<int> threads_of_this_process() {
  std::set<int> threads;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task", error)) {
    const std::string name = entry.path().filename().string();
    char* end = nullptr;
    const long tid = std::strtol(name.c_str(), &end, 10);
    if (end && *end == '\0' && tid > 0) threads.insert(static_cast<int>(tid));
  }
  return threads;
}

std::string calm_new_io_threads(const std::set<int>& before) {
  if (const char* asked = std::getenv("COLLBENCH_GLOO_IO_THREAD"); asked && std::strcmp(asked, "normal") == 0) {
    return "normal (COLLBENCH_GLOO_IO_THREAD)";
  }
#ifdef __linux__
  const std::set<int> now = threads_of_this_process();
  if (now.empty()) return "normal (no /proc/self/task)";
  int changed = 0;
  for (const int tid : now) {
    if (before.count(tid)) continue;
    const sched_param parameters{};  // SCHED_BATCH takes priority 0, and no privilege
    if (sched_setscheduler(tid, SCHED_BATCH, &parameters) != 0) {
      return std::string("normal (sched_setscheduler: ") + std::strerror(errno) + ")";
    }
    ++changed;
  }
  return changed > 0 ? "SCHED_BATCH" : "normal (no new thread found)";
#else
  (void)before;
  return "normal (not Linux)";
#endif
}

}  // namespace collbench::gloo_backend
