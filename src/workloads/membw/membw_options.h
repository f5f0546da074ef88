// membw_perf's options: the compute flags plus the STREAM arrays and kernels. Pure: no MPI or CUDA
// (unit-tested).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/sizes.h"
#include "engines/kinds.h"
#include "workloads/compute/compute_flags.h"

namespace collbench::compute {

struct MembwOptions : ComputeFlags {
  SizeSweep sweep{128u << 20, 128u << 20, 1u << 20, 0.0};  // bytes per array
  std::vector<std::uint64_t> explicit_sizes;                // --sizes: bytes per array
  std::vector<StreamKernel> kernels{StreamKernel::kCopy, StreamKernel::kScale, StreamKernel::kAdd, StreamKernel::kTriad};
  bool kernels_given = false;  // -k: else a GPU adds memcpy to STREAM's four

  // Bytes per array: --sizes or the sweep.
  std::vector<std::uint64_t> array_sizes() const;
};

// Every flag of membw_perf, once: parsing, --help and the report's context.options read these.
void declare_membw_options(CLI::App& app, MembwOptions& options);
// Parses argv without argv[0]. Throws UsageError with one sentence on any bad flag.
MembwOptions parse_membw_options(const std::vector<std::string>& args);

}  // namespace collbench::compute
