// CB_CUDA_CHECK: turns a CUDA runtime error into an Error with rank, host, file, line and CUDA's words.
// Only GPU code includes this header (it needs cuda_runtime.h); workloads never do.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "core/error.h"

namespace collbench::cuda {

// "rank 3 (host-a)": the launcher's rank and this host, for error messages raised below MPI.
std::string where_this_process_runs();

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line);

}  // namespace collbench::cuda

#define CB_CUDA_CHECK(call)                                                                           \
  do {                                                                                                \
    const cudaError_t cb_cuda_code = (call);                                                          \
    if (cb_cuda_code != cudaSuccess) ::collbench::cuda::throw_cuda_error(cb_cuda_code, #call, __FILE__, __LINE__); \
  } while (0)
