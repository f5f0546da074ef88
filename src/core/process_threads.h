// The threads of this process as Linux shows them (/proc/self/task): their names, the CPU each
// last ran on and the CPUs each may run on. Used to say which threads communicated where
// (ddp_step_perf) and to find the threads a library started (Gloo's I/O thread). Elsewhere than
// Linux every query answers "unknown" (empty), and every change is refused (false).
#pragma once

#include <set>
#include <string>
#include <vector>

namespace collbench {

// Names Gloo's I/O threads are given where they start (backends/gloo/io_thread.h), at most 15
// characters: the data plane's moves the measured bytes, the control plane's the runner's own.
inline constexpr const char* kGlooDataIoThreadName = "gloo-io";
inline constexpr const char* kGlooControlIoThreadName = "gloo-control-io";

// Kernel thread ids of this process now.
std::set<int> threads_of_this_process();
// The calling thread's kernel id.
int this_thread_id();
// A thread's name (/proc/self/task/TID/comm, at most 15 characters); "" when unknown.
std::string thread_name(int tid);
// Renames a thread of this process (shown by top -H, ps -L and the reports); false when refused.
bool set_thread_name(int tid, const std::string& name);
// The CPU the thread last ran on (field 39 of /proc/self/task/TID/stat); -1 when unknown.
int thread_last_cpu(int tid);
// The CPUs the thread may run on (sched_getaffinity); empty when unknown. tid 0: the caller.
std::vector<int> thread_affinity(int tid);
// Restricts a thread (tid 0: the caller) to `cpus`; false when the kernel refuses.
bool set_thread_affinity(int tid, const std::vector<int>& cpus);
// The CPU the calling thread runs on now (sched_getcpu); -1 when unknown.
int current_cpu();
// "0-3,6": CPU numbers as Linux writes CPU lists; "" for none.
std::string cpu_list_text(const std::set<int>& cpus);

}  // namespace collbench
