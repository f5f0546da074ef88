// CB_NCCL_CHECK: turns an NCCL error into an Error with rank, host, file, line and NCCL's words
// (its error string and, where NCCL kept one, the last error message).
#pragma once

#include <nccl.h>

#include "core/error.h"

namespace collbench::nccl {

[[noreturn]] void throw_nccl_error(ncclResult_t code, ncclComm_t comm, const char* call, const char* file, int line);

}  // namespace collbench::nccl

#define CB_NCCL_CHECK(call)                                                                                   \
  do {                                                                                                        \
    const ncclResult_t cb_nccl_code = (call);                                                                 \
    if (cb_nccl_code != ncclSuccess) ::collbench::nccl::throw_nccl_error(cb_nccl_code, nullptr, #call, __FILE__, __LINE__); \
  } while (0)
