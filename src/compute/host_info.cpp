#include "compute/host_info.h"

#include <sched.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace collbench::compute {
namespace {

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

std::uint64_t parse_cache_size(const std::string& text) {  // "32768K" or "32M" as sysfs writes them
  if (text.empty()) return 0;
  std::uint64_t value = std::strtoull(text.c_str(), nullptr, 10);
  if (text.find('K') != std::string::npos) value <<= 10;
  if (text.find('M') != std::string::npos) value <<= 20;
  return value;
}

std::uint64_t last_level_cache() {
  for (int index = 4; index >= 0; --index) {
    std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/size");
    std::string text;
    if (in >> text) {
      const auto bytes = parse_cache_size(text);
      if (bytes > 0) return bytes;
    }
  }
  const long bytes = ::sysconf(_SC_LEVEL3_CACHE_SIZE);
  return bytes > 0 ? static_cast<std::uint64_t>(bytes) : 0;
}

std::uint64_t total_memory() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  while (in >> key >> kib) {
    if (key == "MemTotal:") return kib << 10;
    in.ignore(1 << 10, '\n');
  }
  return 0;
}

int numa_node_of_cpu(int cpu) {
  if (cpu < 0) return -1;
  for (int node = 0; node < 1024; ++node) {
    std::ifstream probe("/sys/devices/system/node/node" + std::to_string(node) + "/cpulist");
    if (!probe) {
      if (node > 0) break;
      return -1;
    }
    std::string list;
    probe >> list;
    std::stringstream ranges(list);
    std::string range;
    while (std::getline(ranges, range, ',')) {
      const auto dash = range.find('-');
      const int low = std::stoi(range.substr(0, dash));
      const int high = dash == std::string::npos ? low : std::stoi(range.substr(dash + 1));
      if (cpu >= low && cpu <= high) return node;
    }
  }
  return -1;
}

std::string cpu_list(const cpu_set_t& set) {
  std::string out;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &set)) continue;
    int last = cpu;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
    if (!out.empty()) out += ',';
    out += std::to_string(cpu);
    if (last > cpu) out += "-" + std::to_string(last);
    cpu = last;
  }
  return out;
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
  switch (level) {
    case VectorLevel::kScalar: return "scalar";
    case VectorLevel::kSse: return "sse";
    case VectorLevel::kAvx: return "avx";
    case VectorLevel::kAvx2: return "avx2";
    case VectorLevel::kAvx512: return "avx512";
  }
  return "?";
}

HostInfo probe_host() {
  HostInfo host;
  host.cpu_model = first_cpuinfo_value("model name");
  if (host.cpu_model.empty()) host.cpu_model = "unknown";
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  host.online_cores = online > 0 ? static_cast<int>(online) : 1;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof(set), &set) == 0) {
    host.affinity_cores = CPU_COUNT(&set);
    host.affinity_list = cpu_list(set);
  } else {
    host.affinity_cores = host.online_cores;
  }
  host.current_cpu = ::sched_getcpu();
  host.numa_node = numa_node_of_cpu(host.current_cpu);
  const std::string mhz = first_cpuinfo_value("cpu MHz");
  host.clock_ghz = mhz.empty() ? 0.0 : std::strtod(mhz.c_str(), nullptr) / 1000.0;
  host.vector_level = detect_vector_level();
  host.last_level_cache_bytes = last_level_cache();
  host.memory_bytes = total_memory();
  return host;
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
