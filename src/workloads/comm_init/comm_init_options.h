// comm_init_perf's options: the shared flag groups plus the communicator sizes and the backend.
// Pure: no MPI, no world (unit-tested).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/backend.h"
#include "harness/flag_groups.h"

namespace collbench {

struct CommInitOptions : RunFlags, BackendFlags {
  CommInitOptions() {
    // A communicator's set-up takes milliseconds to seconds: fewer repetitions than a collective's.
    iterations = 10;
    warmup_iterations = 1;
    check_iterations = 0;  // every made communicator's size and rank are checked anyway
  }
  std::vector<int> comm_sizes;  // --comm-sizes; empty: 1, 2, 4 ... and the world size
};

// Throws UsageError with one sentence on a bad flag.
CommInitOptions parse_comm_init_options(const std::vector<std::string>& args);
std::string comm_init_usage();
nlohmann::json comm_init_options_json(const CommInitOptions& options);

// The communicator sizes of a run: `requested`, or 1, 2, 4 ... up to the world and the world itself.
// Throws UsageError for a size outside 1..world_size.
std::vector<int> communicator_sizes(const std::vector<int>& requested, int world_size);

// Why `method` cannot run at communicator size `size` of a `world_size`-rank world, as a skip's
// {what, reason}; nullopt when it can. A method the loaded library lacks is skipped at every size,
// one that cannot cover the whole world (ncclCommShrink) at the world's size only.
std::optional<std::pair<std::string, std::string>> communicator_skip(const CommunicatorMethod& method, int size, int world_size);

// Seconds from this process's start to `now_since_boot_s` (CLOCK_BOOTTIME), from a /proc/<pid>/stat
// line (its 22nd field, the start in clock ticks since boot: 1/ticks_per_second resolution).
// Throws Error when the line has no such field.
double seconds_since_process_start(const std::string& proc_stat_line, double now_since_boot_s, long ticks_per_second);

}  // namespace collbench
