#include "backends/cuda/cuda_check.h"

#include <unistd.h>

#include <cstdlib>

namespace collbench::cuda {

std::string where_this_process_runs() {
  // The launcher's variables, read here rather than through MPI so that copy_perf and code running
  // before MPI_Init can say where they failed too.
  const char* rank = nullptr;
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"}) {
    if ((rank = std::getenv(name)) != nullptr) break;
  }
  char host[256] = {0};
  ::gethostname(host, sizeof(host) - 1);
  return std::string("rank ") + (rank ? rank : "0") + " (" + host + ")";
}

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  cudaGetLastError();  // clear a sticky-free error so later calls are not blamed for it
  throw Error(located_message(file, line, std::string(call) + " failed on " + where_this_process_runs() + ": " +
                                              cudaGetErrorName(code) + ": " + cudaGetErrorString(code)));
}

}  // namespace collbench::cuda
