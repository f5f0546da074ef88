// envcheck's options: the compute flags plus the probes and what makes a rank slow. Pure: no BLAS,
// MPI or CUDA (unit-tested).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/compute/compute_flags.h"

namespace collbench::compute {

struct EnvcheckOptions : ComputeFlags {
  EnvcheckOptions() {  // seven samples of each probe after one warm-up sample
    iterations = 7;
    warmup_iterations = 1;
  }
  double slow_factor = 1.5;
  double probe_ms = 60;  // each probe sample runs at least this long, so time-slicing shows
  std::int64_t probe_matrix_n = 256;
  std::uint64_t probe_bytes = 32u << 20;
};

// Every flag of envcheck, once: parsing, --help and the report's context.options read these.
void declare_envcheck_options(CLI::App& app, EnvcheckOptions& options);
// Parses argv without argv[0]. Throws UsageError with one sentence on any bad flag.
EnvcheckOptions parse_envcheck_options(const std::vector<std::string>& args);

}  // namespace collbench::compute
