// CB_CUDA_CHECK / CB_CUBLAS_CHECK for the compute engines: a failed call becomes an Error with the
// file, line and the library's own words.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <string>

#include "core/error.h"

#define CB_COMPUTE_CUDA_CHECK(call)                                                                          \
  do {                                                                                                       \
    const cudaError_t cb_status = (call);                                                                    \
    if (cb_status != cudaSuccess)                                                                            \
      throw ::collbench::Error(::collbench::located_message(__FILE__, __LINE__, std::string(#call) + ": " + \
                                                                                   cudaGetErrorString(cb_status))); \
  } while (0)

#define CB_COMPUTE_CUBLAS_CHECK(call)                                                                        \
  do {                                                                                                       \
    const cublasStatus_t cb_status = (call);                                                                 \
    if (cb_status != CUBLAS_STATUS_SUCCESS)                                                                  \
      throw ::collbench::Error(::collbench::located_message(__FILE__, __LINE__, std::string(#call) + ": " + \
                                                                                   cublasLtGetStatusString(cb_status))); \
  } while (0)
