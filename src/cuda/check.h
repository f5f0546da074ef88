// The checks at the CUDA libraries' boundary: a failed call throws an Error with rank, host, file,
// line and the library's own words. The cuBLAS and NCCL checks are macros, so only their callers
// include cublasLt.h or nccl.h. Only code that calls CUDA includes this; workloads never do.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "core/error.h"

namespace collbench::cuda {

// "rank 3 (host-a)": the launcher's rank and this host, for error messages raised below MPI.
std::string where_this_process_runs();

// "`call` failed on rank R (host): `words` (`detail`)", located at file:line; no detail when null or empty.
[[noreturn]] void throw_call_error(const char* call, const std::string& words, const char* file, int line,
                                   const char* detail = nullptr);

// "cudaErrorX: description"; clears a sticky-free error so that later calls are not blamed for it.
std::string cuda_error_words(cudaError_t code);

}  // namespace collbench::cuda

// `call` returns a status; any but `success` throws with `words(status)` and `detail`.
#define CB_LIBRARY_CHECK(call, success, words, detail)                                                           \
  do {                                                                                                          \
    const auto cb_status = (call);                                                                              \
    if (cb_status != (success)) ::collbench::cuda::throw_call_error(#call, words(cb_status), __FILE__, __LINE__, detail); \
  } while (0)

#define CB_CUDA_CHECK(call) CB_LIBRARY_CHECK(call, cudaSuccess, ::collbench::cuda::cuda_error_words, nullptr)
#define CB_CUBLAS_CHECK(call) CB_LIBRARY_CHECK(call, CUBLAS_STATUS_SUCCESS, cublasLtGetStatusString, nullptr)
// NCCL's last error message, where it kept one, follows its words.
#define CB_NCCL_CHECK(call) CB_LIBRARY_CHECK(call, ncclSuccess, ncclGetErrorString, ncclGetLastError(nullptr))
