// CB_CUBLAS_CHECK for the compute engines (cuBLASLt status -> Error with file, line and cuBLAS's
// words). CUDA runtime calls use the project-wide CB_CUDA_CHECK from backends/cuda/cuda_check.h.
#pragma once

#include <cublasLt.h>

#include <string>

#include "backends/cuda/cuda_check.h"
#include "core/error.h"

#define CB_CUBLAS_CHECK(call)                                                                                \
  do {                                                                                                       \
    const cublasStatus_t cb_status = (call);                                                                 \
    if (cb_status != CUBLAS_STATUS_SUCCESS)                                                                  \
      throw ::collbench::Error(::collbench::located_message(__FILE__, __LINE__, std::string(#call) + ": " + \
                                                                                   cublasLtGetStatusString(cb_status))); \
  } while (0)
