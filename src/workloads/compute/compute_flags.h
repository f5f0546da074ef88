// What matmul_perf, membw_perf and envcheck declare alike: where a rank computes (--device,
// --threads), the flag groups after each program's own flags and the footer. Each program's
// options (matmul/, membw/, envcheck/) derive from ComputeFlags and declare their own flags first.
#pragma once

#include <cstdint>
#include <string>

#include "harness/flag_groups.h"

namespace collbench::compute {

enum class DeviceChoice { kAuto, kCpu, kGpu };

struct ComputeFlags : RunFlags {
  DeviceChoice device = DeviceChoice::kAuto;
  int threads = 0;  // 0: every core this process may run on
};

// The sections after a program's own, in --help's order: Measurement (the loop's `words`, the run),
// Device, Report (with --seed and help); then the footer, whose exit 3 means `wrong_results`.
void add_compute_flags(CLI::App& app, ComputeFlags& flags, const LoopWords& words, const std::string& wrong_results);

// A matrix dimension (matmul_perf --shapes, envcheck --probe-n): a count, so K/M suffixes
// (1024-based) are accepted like sizes. Throws UsageError outside 1..1048576.
std::int64_t parse_dimension(const std::string& text, const std::string& flag);

}  // namespace collbench::compute
