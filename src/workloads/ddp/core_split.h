// --comm-cores N: which of this rank's cores are kept for the communication threads and which
// run the compute, as a real job decides when it sets aside cores for data loaders and NCCL's
// proxy threads. Pure: the cores come in, the split goes out.
#pragma once

#include <vector>

namespace collbench::ddp {

struct CoreSplit {
  std::vector<int> compute;        // the main thread and the BLAS threads
  std::vector<int> communication;  // the communication thread and the backend's I/O threads
};

// `allowed`: the CPUs this rank may run on, ascending. The last `communication_cores` of them go to
// communication, the rest to compute. Throws UsageError (one sentence) unless 0 < N < allowed.
CoreSplit split_cores(const std::vector<int>& allowed, int communication_cores);

}  // namespace collbench::ddp
