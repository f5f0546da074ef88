// CB_MPI_CHECK: turns an MPI error code into an Error with rank, host, file, line and MPI's words.
#pragma once

#include <mpi.h>

#include <string>

#include "core/error.h"

namespace collbench::mpi {

[[noreturn]] void throw_mpi_error(int code, const char* call, const char* file, int line);

}  // namespace collbench::mpi

#define CB_MPI_CHECK(call)                                                              \
  do {                                                                                  \
    const int cb_mpi_code = (call);                                                     \
    if (cb_mpi_code != MPI_SUCCESS) ::collbench::mpi::throw_mpi_error(cb_mpi_code, #call, __FILE__, __LINE__); \
  } while (0)
