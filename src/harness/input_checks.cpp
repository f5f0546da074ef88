#include "harness/input_checks.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "core/printable.h"

namespace collbench {
namespace {

std::string gibibytes(std::uint64_t bytes) { return formatted("%.1f GiB", static_cast<double>(bytes) / (1024.0 * 1024 * 1024)); }

// This host's MemAvailable from /proc/meminfo, or 0 when unknown.
std::uint64_t available_host_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::uint64_t kibibytes = 0;
  std::string unit;
  while (meminfo >> key >> kibibytes >> unit) {
    if (key == "MemAvailable:") return kibibytes * 1024;
  }
  return 0;
}

}  // namespace

std::string memory_shortfall(World& world, const MemoryNeed& need) {
  const std::uint64_t needed = need.bytes_per_rank;
  const std::vector<std::string> hosts =
      world.gather_strings(world.host() + ' ' + std::to_string(available_host_memory_bytes()));
  std::map<std::string, std::pair<int, std::uint64_t>> ranks_and_memory;  // host -> (ranks, available)
  std::vector<std::string> order;
  for (const std::string& entry : hosts) {
    const auto space = entry.rfind(' ');
    const std::string host = entry.substr(0, space);
    auto& [ranks, available] = ranks_and_memory[host];
    if (ranks++ == 0) order.push_back(host);
    available = std::strtoull(entry.c_str() + space + 1, nullptr, 10);
  }
  for (const std::string& host : order) {
    const auto [ranks, available] = ranks_and_memory[host];
    if (available == 0 || needed == 0) continue;  // unknown: let the allocation speak
    // Overflow-proof form of needed * ranks > available.
    if (needed > available / static_cast<std::uint64_t>(ranks)) {
      return need.what + " " + gibibytes(needed) + " of buffers per rank (" + std::to_string(ranks) +
             " rank(s) on " + host + ": " + gibibytes(needed * static_cast<std::uint64_t>(ranks)) + ") but " + host +
             " has " + gibibytes(available) + " available; " + need.remedy;
    }
  }
  return "";
}

std::string report_write_problem(const std::string& path) {
  // A short name in the report's folder: a report name as long as the filesystem allows must not
  // fail here only because a suffix made it longer.
  const auto parent = std::filesystem::path(path).parent_path();
  std::string probe = (parent.empty() ? std::string(".") : parent.string()) + "/.collbench-probe-XXXXXX";
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) return "cannot write report '" + path + "': " + std::strerror(errno);
  const bool written = ::write(fd, "{}\n", 3) == 3;
  const int saved = errno;
  ::close(fd);
  ::unlink(probe.c_str());
  if (!written) return "cannot write report '" + path + "': " + std::strerror(saved);
  return "";
}

}  // namespace collbench
