#include "cuda/check.h"

#include <cstdlib>

namespace collbench::cuda {

std::string where_this_process_runs() {
  // The launcher's variables, read here rather than through MPI so that code running before
  // MPI_Init, or without MPI, can say where it failed too.
  const char* rank = nullptr;
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"}) {
    if ((rank = std::getenv(name)) != nullptr) break;
  }
  return std::string("rank ") + (rank ? rank : "0") + " (" + this_host() + ")";
}

void throw_call_error(const char* call, const std::string& words, const char* file, int line, const char* detail) {
  const std::string more = detail && *detail ? " (" + std::string(detail) + ")" : "";
  throw Error(located_message(file, line, std::string(call) + " failed on " + where_this_process_runs() + ": " + words + more));
}

std::string cuda_error_words(cudaError_t code) {
  cudaGetLastError();
  return std::string(cudaGetErrorName(code)) + ": " + cudaGetErrorString(code);
}

}  // namespace collbench::cuda
