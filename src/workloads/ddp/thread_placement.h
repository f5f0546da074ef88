// Which threads of a rank took part in a DDP step and on which CPUs they ran, and --comm-cores'
// binding of them. Threads are told apart by their names: the communication thread's
// (kCommunicationThreadName) and Gloo's data-plane I/O thread's (kGlooDataIoThreadName).
#pragma once

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "workloads/ddp/core_split.h"

namespace collbench::ddp {

// Binds every thread of this process now: those that carry the all-reduces (the communication
// thread, the backend's data-plane I/O thread) to split.communication, every other (this thread,
// BLAS and library threads) to split.compute; threads started later take their starter's cores.
// Returns the names of the threads the kernel refused to move (empty: all moved).
std::vector<std::string> bind_threads(const CoreSplit& split);

// The threads of one row's steps: the one that issued the all-reduces, seen on `issuing_cpus`
// (sched_getcpu around each), the backend's I/O threads and the calling (compute) thread, with
// the CPU each last ran on; every one with its allowed CPUs.
// Each is {name, role, cpus, allowed_cpus} as a ddp_step row's per_rank[].threads holds it: name
// its Linux thread name, role "all-reduces", "compute and all-reduces", "backend I/O" or "compute",
// cpus a CPU list ("0-3").
nlohmann::json census_threads(int issuing_tid, const std::set<int>& issuing_cpus);

}  // namespace collbench::ddp
