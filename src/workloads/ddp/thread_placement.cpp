#include "workloads/ddp/thread_placement.h"

#include "core/process_threads.h"
#include "workloads/ddp/communication_thread.h"

namespace collbench::ddp {
namespace {

bool carries_all_reduces(const std::string& name) { return name == kCommunicationThreadName || name == kGlooDataIoThreadName; }

std::string allowed_text(int tid) {
  const std::vector<int> allowed = thread_affinity(tid);
  return cpu_list_text({allowed.begin(), allowed.end()});
}

std::string last_cpu_text(int tid) {
  const int cpu = thread_last_cpu(tid);
  return cpu < 0 ? "" : std::to_string(cpu);
}

}  // namespace

std::vector<std::string> bind_threads(const CoreSplit& split) {
  std::vector<std::string> refused;
  for (const int tid : threads_of_this_process()) {
    const std::string name = thread_name(tid);
    if (!set_thread_affinity(tid, carries_all_reduces(name) ? split.communication : split.compute)) refused.push_back(name);
  }
  return refused;
}

nlohmann::json census_threads(int issuing_tid, const std::set<int>& issuing_cpus) {
  const int compute_tid = this_thread_id();
  nlohmann::json threads = nlohmann::json::array();
  const auto record = [&threads](const std::string& name, const char* role, const std::string& cpus, const std::string& allowed) {
    threads.push_back({{"name", name}, {"role", role}, {"cpus", cpus}, {"allowed_cpus", allowed}});
  };
  if (issuing_tid > 0) {
    record(thread_name(issuing_tid), issuing_tid == compute_tid ? "compute and all-reduces" : "all-reduces",
           cpu_list_text(issuing_cpus), allowed_text(issuing_tid));
  }
  for (const int tid : threads_of_this_process()) {
    if (tid == issuing_tid || tid == compute_tid || thread_name(tid) != kGlooDataIoThreadName) continue;
    record(kGlooDataIoThreadName, "backend I/O", last_cpu_text(tid), allowed_text(tid));
  }
  if (compute_tid != issuing_tid) record(thread_name(compute_tid), "compute", last_cpu_text(compute_tid), allowed_text(compute_tid));
  return threads;
}

}  // namespace collbench::ddp
