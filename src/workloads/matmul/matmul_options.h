// matmul_perf's options: the compute flags plus the GEMMs to time. Pure: no BLAS, MPI or CUDA
// (unit-tested).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/sizes.h"
#include "engines/kinds.h"
#include "workloads/compute/compute_flags.h"

namespace collbench::compute {

struct MatmulOptions : ComputeFlags {
  SizeSweep sweep{1024, 4096, 1024, 2.0};  // square sides
  std::vector<std::uint64_t> explicit_sizes;  // --sizes: square sides
  std::vector<GemmShape> shapes;              // --shapes MxNxK,...; replaces the sweep
  std::vector<GemmType> gemm_types{GemmType::kFloat32};
  int rotate_sets = 0;  // GEMM input sets to cycle through; 0 = enough to exceed the last-level cache

  // The square sides (--sizes or the sweep), and the shapes to run (--shapes or those squares).
  std::vector<std::uint64_t> square_sides() const;
  std::vector<GemmShape> gemm_shapes() const;
};

// Every flag of matmul_perf, once: parsing, --help and the report's context.options read these.
void declare_matmul_options(CLI::App& app, MatmulOptions& options);
// Parses argv without argv[0]. Throws UsageError with one sentence on any bad flag.
MatmulOptions parse_matmul_options(const std::vector<std::string>& args);

}  // namespace collbench::compute
