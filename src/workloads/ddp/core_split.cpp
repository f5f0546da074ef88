#include "workloads/ddp/core_split.h"

#include <string>

#include "core/error.h"

namespace collbench::ddp {

CoreSplit split_cores(const std::vector<int>& allowed, int communication_cores) {
  const auto cores = static_cast<int>(allowed.size());
  if (communication_cores < 1 || communication_cores >= cores) {
    throw UsageError("--comm-cores " + std::to_string(communication_cores) + " leaves no core for " +
                     (communication_cores < 1 ? std::string("communication") : std::string("compute")) + ": a rank may run on " +
                     std::to_string(cores) + " core(s) (its affinity), and N must be at least 1 and below that (mpirun binds each " +
                     "rank to one core unless told --bind-to none or --map-by slot:PE=N)");
  }
  CoreSplit split;
  const auto first_communication = allowed.end() - communication_cores;
  split.compute.assign(allowed.begin(), first_communication);
  split.communication.assign(first_communication, allowed.end());
  return split;
}

}  // namespace collbench::ddp
