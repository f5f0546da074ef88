// The host topology (cores online, this thread's affinity, its NUMA node, the last-level cache and
// the CPU model) comes from hwloc, which already knows the sysfs layouts, cgroups and fallbacks.
// Kept by hand, because hwloc gives a different figure or none, or one libc call does it:
// - memory_bytes: sysconf(_SC_PHYS_PAGES) x page size, which equals /proc/meminfo's MemTotal. hwloc
//   sums the NUMA nodes' memory instead, which can be far smaller: 5.6 GB against a MemTotal of
//   25.3 GB on the VM this was written on.
// - clock_ghz: "cpu MHz" from /proc/cpuinfo. hwloc has frequencies only from cpufreq (cpukinds
//   attributes), which VMs often lack (this one does).
// - vector_level: the compiler's cpuid builtins; hwloc does not report instruction-set extensions.
// - current_cpu: sched_getcpu(), one libc call.
// - last-level cache: sysconf(_SC_LEVEL3_CACHE_SIZE) (cpuid) only where hwloc finds no cache.
// One difference: a kernel without NUMA sysfs gets numa_node 0 (hwloc's one machine-wide node), was -1.
#include "engines/host_info.h"

#include <hwloc.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>

#include "core/error.h"

namespace collbench::compute {
namespace {

// One loaded topology, freed on scope exit; each probe loads its own, so there is no shared state.
class Topology {
 public:
  Topology() {
    if (hwloc_topology_init(&topology_) != 0) fail("hwloc_topology_init");
    // Disallowed (cgroup-excluded) PUs stay in, so online_cores counts every online CPU as
    // sysconf(_SC_NPROCESSORS_ONLN) did; the affinity is what tells the process's share.
    if (hwloc_topology_set_flags(topology_, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED) != 0 ||
        hwloc_topology_load(topology_) != 0) {
      const int error = errno;
      hwloc_topology_destroy(topology_);
      errno = error;
      fail("hwloc_topology_load");
    }
  }
  ~Topology() { hwloc_topology_destroy(topology_); }
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;
  hwloc_topology_t get() const { return topology_; }

 private:
  [[noreturn]] static void fail(const char* call) {
    throw Error(std::string("cannot read the host topology: ") + call + ": " + std::strerror(errno));
  }
  hwloc_topology_t topology_ = nullptr;
};

struct BitmapFree {
  void operator()(hwloc_bitmap_s* bitmap) const { hwloc_bitmap_free(bitmap); }
};
using Bitmap = std::unique_ptr<hwloc_bitmap_s, BitmapFree>;

std::string first_cpuinfo_value(const std::string& key) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    return value;
  }
  return "";
}

std::string cpu_model(const Topology& topology) {
  hwloc_obj_t package = hwloc_get_next_obj_by_type(topology.get(), HWLOC_OBJ_PACKAGE, nullptr);
  const char* model = package ? hwloc_obj_get_info_by_name(package, "CPUModel") : nullptr;
  return model && *model ? model : "unknown";
}

// CPU 0's PU (the first PU where CPU 0 is offline): where the cache walk starts.
hwloc_obj_t first_pu(const Topology& topology) {
  hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topology.get(), 0);
  return pu ? pu : hwloc_get_obj_by_type(topology.get(), HWLOC_OBJ_PU, 0);
}

// The data and unified caches above CPU 0, innermost first, each with the cores under it.
std::vector<CacheLevel> cache_levels(const Topology& topology) {
  std::vector<CacheLevel> levels;
  const hwloc_obj_t pu = first_pu(topology);
  for (hwloc_obj_t obj = pu ? pu->parent : nullptr; obj; obj = obj->parent) {
    if (!hwloc_obj_type_is_dcache(obj->type) || obj->attr->cache.size == 0) continue;
    const int cores = hwloc_get_nbobjs_inside_cpuset_by_type(topology.get(), obj->cpuset, HWLOC_OBJ_CORE);
    levels.push_back({static_cast<int>(obj->attr->cache.depth), obj->attr->cache.size, std::max(1, cores)});
  }
  return levels;
}

// The outermost data cache above CPU 0: the last level.
std::uint64_t last_level_cache(const std::vector<CacheLevel>& levels) {
  if (!levels.empty()) return levels.back().bytes;
  const long level3 = ::sysconf(_SC_LEVEL3_CACHE_SIZE);
  return level3 > 0 ? static_cast<std::uint64_t>(level3) : 0;
}

std::uint64_t total_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_bytes = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page_bytes > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_bytes) : 0;
}

// The lowest-numbered NUMA node whose CPUs include `cpu`; nodes without CPUs (HBM, CXL) never match.
int numa_node_of_cpu(const Topology& topology, int cpu) {
  if (cpu < 0) return -1;
  int found = -1;
  for (hwloc_obj_t node = hwloc_get_next_obj_by_type(topology.get(), HWLOC_OBJ_NUMANODE, nullptr); node;
       node = hwloc_get_next_obj_by_type(topology.get(), HWLOC_OBJ_NUMANODE, node)) {
    const int index = static_cast<int>(node->os_index);
    if (hwloc_bitmap_isset(node->cpuset, static_cast<unsigned>(cpu)) && (found < 0 || index < found)) found = index;
  }
  return found;
}

VectorLevel detect_vector_level() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  // SkylakeX-class kernels need F, CD, BW, DQ and VL together.
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512cd")) {
    return VectorLevel::kAvx512;
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return VectorLevel::kAvx2;
  if (__builtin_cpu_supports("avx")) return VectorLevel::kAvx;
  if (__builtin_cpu_supports("sse3")) return VectorLevel::kSse;
#endif
  return VectorLevel::kScalar;
}

}  // namespace

std::string to_string(VectorLevel level) {
  constexpr const char* kNames[] = {"scalar", "sse", "avx", "avx2", "avx512"};  // in VectorLevel's order
  return kNames[static_cast<std::size_t>(level)];
}

HostInfo probe_host() {
  const Topology topology;
  HostInfo host;
  host.cpu_model = cpu_model(topology);
  const int online = hwloc_bitmap_weight(hwloc_topology_get_topology_cpuset(topology.get()));
  host.online_cores = online > 0 ? online : 1;
  host.physical_cores = std::max(0, hwloc_get_nbobjs_by_type(topology.get(), HWLOC_OBJ_CORE));
  // This thread's binding, as sched_getaffinity(0) gave: the whole process's is the union over its
  // threads, which hides a binding set on the calling thread alone.
  const Bitmap bound(hwloc_bitmap_alloc());
  if (bound && hwloc_get_cpubind(topology.get(), bound.get(), HWLOC_CPUBIND_THREAD) == 0 &&
      hwloc_bitmap_weight(bound.get()) > 0) {
    host.affinity_cores = hwloc_bitmap_weight(bound.get());
    char* list = nullptr;  // hwloc's list syntax ("0,2-5") is the one we printed by hand before
    if (hwloc_bitmap_list_asprintf(&list, bound.get()) >= 0 && list) host.affinity_list = list;
    std::free(list);
  } else {
    host.affinity_cores = host.online_cores;
  }
  host.current_cpu = ::sched_getcpu();
  host.numa_node = numa_node_of_cpu(topology, host.current_cpu);
  const std::string mhz = first_cpuinfo_value("cpu MHz");
  host.clock_ghz = mhz.empty() ? 0.0 : std::strtod(mhz.c_str(), nullptr) / 1000.0;
  host.vector_level = detect_vector_level();
  host.caches = cache_levels(topology);
  host.last_level_cache_bytes = last_level_cache(host.caches);
  host.memory_bytes = total_memory();
  return host;
}

std::uint64_t host_last_level_cache_bytes() {
  try {
    const Topology topology;
    return last_level_cache(cache_levels(topology));
  } catch (const std::exception&) {
    return 0;  // a row is then left unmarked, not the run stopped
  }
}

int flops_per_cycle_estimate(VectorLevel level, int element_bits) {
  int vector_bits = 64;  // scalar: one multiply and one add per cycle, each "vector" one element
  int fma_factor = 2;    // an FMA is two FLOPs
  switch (level) {
    case VectorLevel::kScalar: vector_bits = element_bits; break;
    case VectorLevel::kSse: vector_bits = 128; break;  // separate multiply and add ports: same 2 FLOPs per lane
    case VectorLevel::kAvx: vector_bits = 256; break;
    case VectorLevel::kAvx2: vector_bits = 256; break;
    case VectorLevel::kAvx512: vector_bits = 512; break;
  }
  const int lanes = vector_bits / element_bits;
  const int units = level == VectorLevel::kScalar ? 1 : 2;
  return lanes * fma_factor * units;
}

std::optional<double> cpu_peak_tflops_estimate(const HostInfo& host, int cores, int element_bits) {
  if (host.clock_ghz <= 0 || cores <= 0) return std::nullopt;
  return cores * host.clock_ghz * 1e9 * flops_per_cycle_estimate(host.vector_level, element_bits) / 1e12;
}

}  // namespace collbench::compute
