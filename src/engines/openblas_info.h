// Which kernels OpenBLAS chose, and whether they fall short of the CPU.
//
// Debian's OpenBLAS 0.3.21 does not recognise some newer CPUs and falls back to "Prescott" (SSE3)
// kernels; on an AVX-512 CPU sgemm then runs about 4x slower than with OPENBLAS_CORETYPE=SkylakeX.
#pragma once

#include <string>

#include "engines/host_info.h"

namespace collbench::compute {

struct OpenBlasInfo {
  std::string corename;   // openblas_get_corename(), e.g. "Prescott", "Haswell", "SkylakeX"
  std::string config;     // openblas_get_config()
  int threads = 1;        // openblas_get_num_threads() after configuration
  std::string warning;    // empty when the core matches the CPU
};

// The vector level an OpenBLAS core name's kernels use (pure; unknown names count as SSE).
VectorLevel vector_level_of_core(const std::string& corename);

// The OPENBLAS_CORETYPE that uses `level` fully (pure).
std::string recommended_coretype(VectorLevel level);

// The warning for a core below the CPU, or empty (pure).
std::string core_warning(const std::string& corename, VectorLevel cpu_level);

// Sets OpenBLAS's thread count and reads what it chose.
OpenBlasInfo configure_openblas(int threads, VectorLevel cpu_level);

}  // namespace collbench::compute
