// What this process runs on: CPU model, cores, vector ISA, caches, memory, NUMA node. In the
// harness because every report's context.machine comes from it (compute's programs use it too).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace collbench::compute {

// One data (or unified) cache level above CPU 0, as hwloc sees it: its size and how many cores
// share one instance. The health verdicts judge a bandwidth curve against these (a CPU's busbw
// falls once a rank's buffers leave a cache), so every report's context.machine records them.
struct CacheLevel {
  int level = 0;
  std::uint64_t bytes = 0;
  int shared_by_cores = 1;
};

// The widest x86 vector level the CPU and OS support; ordered, so levels compare.
enum class VectorLevel { kScalar = 0, kSse = 1, kAvx = 2, kAvx2 = 3, kAvx512 = 4 };
std::string to_string(VectorLevel level);

struct HostInfo {
  std::string cpu_model;
  int physical_cores = 0;    // hwloc's cores (0: unknown); online_cores counts hardware threads
  int online_cores = 1;
  int affinity_cores = 1;    // cores this process may run on (mpirun's binding shows here)
  std::string affinity_list; // e.g. "0" or "0-1"
  int current_cpu = -1;
  int numa_node = -1;
  double clock_ghz = 0;      // nominal, from /proc/cpuinfo; 0 when unknown
  VectorLevel vector_level = VectorLevel::kScalar;
  std::uint64_t last_level_cache_bytes = 0;
  std::vector<CacheLevel> caches;  // innermost first; empty when hwloc shows none
  std::uint64_t memory_bytes = 0;
};

HostInfo probe_host();

// The host's last-level cache above CPU 0 (hwloc), 0 when it cannot be read: what the copy and
// STREAM rows compare their working set with. Never throws.
std::uint64_t host_last_level_cache_bytes();

// FLOPs per cycle per core of one FMA-based GEMM in a type of `element_bits`, assuming two FMA
// units of the given vector width: the usual datasheet figure, hence only an estimate.
int flops_per_cycle_estimate(VectorLevel level, int element_bits);

// cores x clock x FLOPs/cycle in TFLOP/s; nullopt when the clock is unknown.
std::optional<double> cpu_peak_tflops_estimate(const HostInfo& host, int cores, int element_bits);

}  // namespace collbench::compute
