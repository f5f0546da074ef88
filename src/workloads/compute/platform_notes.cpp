#include "workloads/compute/platform_notes.h"

#include <map>

#include "engines/openblas_info.h"

namespace collbench::compute {

report::RankPlatform local_platform(const HostInfo& host, int threads_requested, int threads_used, int world_size,
                                    const std::string& device, const std::string& library, bool uses_openblas) {
  report::RankPlatform platform;
  platform.device = device;
  platform.library = library;
  platform.cpu_model = host.cpu_model;
  platform.vector_level = to_string(host.vector_level);
  platform.threads = threads_used;
  platform.affinity = host.affinity_list;
  std::vector<std::string> notes;
  if (uses_openblas) {
    const OpenBlasInfo blas = configure_openblas(threads_used, host.vector_level);
    platform.openblas_corename = blas.corename;
    platform.openblas_config = blas.config;
    if (!blas.warning.empty()) notes.push_back(blas.warning);
  }
  if (device == "cpu") {
    if (threads_used > host.affinity_cores) {
      notes.push_back(std::to_string(threads_used) + " threads share " + std::to_string(host.affinity_cores) +
                      " core(s) (affinity " + host.affinity_list + "): mpirun binds each rank to one core by default; run "
                      "mpirun --bind-to none (one rank per node) or --map-by ppr:R:node:pe=T so each thread has a core");
    } else if (threads_requested == 0 && host.affinity_cores == 1 && host.online_cores > world_size) {
      notes.push_back("bound to 1 of " + std::to_string(host.online_cores) +
                      " cores, so 1 thread per rank; to use more, run mpirun --bind-to none (one rank per node) "
                      "or --map-by ppr:R:node:pe=T, with --threads T");
    }
  }
  for (std::size_t i = 0; i < notes.size(); ++i) platform.warning += (i ? " | " : "") + notes[i];
  return platform;
}

std::vector<std::string> distinct_warnings(const std::vector<report::RankPlatform>& platforms) {
  std::map<std::string, std::string> ranks_by_warning;
  std::vector<std::string> order;
  for (const auto& platform : platforms) {
    std::size_t start = 0;
    const std::string& all = platform.warning;
    while (start < all.size()) {
      std::size_t end = all.find(" | ", start);
      if (end == std::string::npos) end = all.size();
      const std::string one = all.substr(start, end - start);
      start = end + 3;
      if (one.empty()) continue;
      auto& ranks = ranks_by_warning[one];
      if (ranks.empty()) order.push_back(one);
      ranks += (ranks.empty() ? "" : ",") + std::to_string(platform.rank);
    }
  }
  std::vector<std::string> out;
  for (const auto& one : order) out.push_back("rank(s) " + ranks_by_warning[one] + ": " + one);
  return out;
}

}  // namespace collbench::compute
