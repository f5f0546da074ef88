#include "core/process_threads.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#ifdef __linux__
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace collbench {
namespace {

std::string task_path(int tid, const char* file) { return "/proc/self/task/" + std::to_string(tid) + "/" + file; }

}  // namespace

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

std::string thread_name(int tid) {
  std::ifstream in(task_path(tid, "comm"));
  std::string name;
  std::getline(in, name);
  return name;
}

bool set_thread_name(int tid, const std::string& name) {
  std::ofstream out(task_path(tid, "comm"));
  out << name.substr(0, 15);
  out.flush();
  return static_cast<bool>(out);
}

int thread_last_cpu(int tid) {
  std::ifstream in(task_path(tid, "stat"));
  std::string text;
  std::getline(in, text);
  // The name (field 2) is in parentheses and may hold spaces: count fields after its ')'.
  const auto close = text.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream fields(text.substr(close + 1));
  std::string field;
  for (int number = 3; fields >> field; ++number) {
    if (number == 39) return std::atoi(field.c_str());
  }
  return -1;
}

#ifdef __linux__
int this_thread_id() { return static_cast<int>(syscall(SYS_gettid)); }

std::vector<int> thread_affinity(int tid) {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(tid, sizeof(set), &set) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

bool set_thread_affinity(int tid, const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (const int cpu : cpus) {
    if (cpu >= 0 && cpu < CPU_SETSIZE) CPU_SET(cpu, &set);
  }
  return !cpus.empty() && sched_setaffinity(tid, sizeof(set), &set) == 0;
}

int current_cpu() { return sched_getcpu(); }
#else
int this_thread_id() { return 0; }
std::vector<int> thread_affinity(int) { return {}; }
bool set_thread_affinity(int, const std::vector<int>&) { return false; }
int current_cpu() { return -1; }
#endif

std::string cpu_list_text(const std::set<int>& cpus) {
  std::string text;
  for (auto it = cpus.begin(); it != cpus.end();) {
    const int first = *it;
    int last = first;
    for (++it; it != cpus.end() && *it == last + 1; ++it) last = *it;
    if (!text.empty()) text += ",";
    text += std::to_string(first) + (last > first ? "-" + std::to_string(last) : "");
  }
  return text;
}

}  // namespace collbench
