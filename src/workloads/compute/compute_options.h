// Command-line options of matmul_perf, membw_perf and envcheck, parsed once into a const struct,
// over the same command-line layer (core/command_line.h) and sweep flags as the collectives.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/sizes.h"
#include "engines/kinds.h"
#include "harness/flag_groups.h"

namespace collbench::compute {

enum class ComputeProgram { kMatmul, kMembw, kEnvcheck };

enum class DeviceChoice { kAuto, kCpu, kGpu };
std::string to_string(DeviceChoice device);

// The flag groups every program shares (loop, run, report, help) come from RunFlags.
struct ComputeOptions : RunFlags {
  ComputeProgram program = ComputeProgram::kMatmul;
  SizeSweep sweep{1024, 1024, 1024, 0.0};         // matmul: N; membw: bytes per array
  std::vector<std::uint64_t> explicit_sizes;       // --sizes
  std::vector<GemmShape> shapes;                   // matmul --shapes MxNxK,...; replaces the sweep
  std::vector<GemmType> gemm_types{GemmType::kFloat32};
  std::vector<StreamKernel> kernels{StreamKernel::kCopy, StreamKernel::kScale, StreamKernel::kAdd, StreamKernel::kTriad};
  bool kernels_given = false;
  int threads = 0;         // 0: every core this process may run on
  int rotate_sets = 0;     // GEMM input sets to cycle through; 0 = enough to exceed the last-level cache
  DeviceChoice device = DeviceChoice::kAuto;
  // envcheck
  double slow_factor = 1.5;
  double probe_ms = 60;               // each probe sample runs at least this long, so time-slicing shows
  std::int64_t probe_matrix_n = 256;
  std::uint64_t probe_bytes = 32u << 20;

  // matmul: the shapes to run (from --shapes or the square sweep); membw: array sizes in bytes.
  std::vector<GemmShape> gemm_shapes() const;
  std::vector<std::uint64_t> array_sizes() const;
};

// Parses argv without argv[0]. Throws UsageError with one sentence on any bad flag.
ComputeOptions parse_compute_options(ComputeProgram program, const std::vector<std::string>& args);

std::string compute_usage_text(ComputeProgram program);
// context.options: every flag as the run understood it, as its declaration records it.
nlohmann::json compute_options_json(const ComputeOptions& options);

std::string program_name(ComputeProgram program);

}  // namespace collbench::compute
