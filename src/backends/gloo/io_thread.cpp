#include "backends/gloo/io_thread.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#ifdef __linux__
#include <sched.h>
#endif

#include "core/process_threads.h"

namespace collbench::gloo_backend {

std::string calm_new_io_threads(const std::set<int>& before, const std::string& name) {
  const std::set<int> now = threads_of_this_process();
  // Named whatever the policy, so that a report can say which threads communicated.
  for (const int tid : now) {
    if (!before.count(tid)) set_thread_name(tid, name);
  }
  if (const char* asked = std::getenv("COLLBENCH_GLOO_IO_THREAD"); asked && std::strcmp(asked, "normal") == 0) {
    return "normal (COLLBENCH_GLOO_IO_THREAD)";
  }
#ifdef __linux__
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
  return "normal (not Linux)";
#endif
}

}  // namespace collbench::gloo_backend
