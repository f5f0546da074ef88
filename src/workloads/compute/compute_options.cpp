#include "workloads/compute/compute_options.h"

#include <CLI/CLI.hpp>

#include <optional>

#include "core/command_line.h"
#include "harness/flag_groups.h"
#include "core/error.h"
#include "core/flag_values.h"

namespace collbench::compute {
namespace {

// A matrix dimension: a count, so K/M suffixes (1024-based) are accepted like sizes.
std::int64_t parse_dimension(const std::string& text, const std::string& flag) {
  const std::uint64_t value = parse_size(text, flag);
  if (value == 0 || value > (1u << 20)) throw UsageError(flag + " matrix dimensions must be between 1 and 1048576, got '" + text + "'");
  return static_cast<std::int64_t>(value);
}

GemmShape parse_shape(const std::string& text, const std::string& flag) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t x; (x = text.find_first_of("xX", start)) != std::string::npos; start = x + 1) parts.push_back(text.substr(start, x - start));
  parts.push_back(text.substr(start));
  if (parts.size() != 3) throw UsageError(flag + " expects shapes as MxNxK, got '" + text + "'");
  return {parse_dimension(parts[0], flag), parse_dimension(parts[1], flag), parse_dimension(parts[2], flag)};
}

std::optional<GemmType> parse_gemm_type(const std::string& text) {
  if (text == "float64" || text == "double" || text == "fp64") return GemmType::kFloat64;
  if (text == "float32" || text == "float" || text == "fp32") return GemmType::kFloat32;
  if (text == "tf32") return GemmType::kTf32;
  if (text == "float16" || text == "half" || text == "fp16") return GemmType::kFloat16;
  if (text == "bfloat16" || text == "bf16") return GemmType::kBfloat16;
  if (text == "fp8" || text == "float8" || text == "e4m3") return GemmType::kFp8;
  return std::nullopt;
}

std::optional<StreamKernel> parse_kernel(const std::string& text) {
  if (text == "copy") return StreamKernel::kCopy;
  if (text == "scale") return StreamKernel::kScale;
  if (text == "add") return StreamKernel::kAdd;
  if (text == "triad") return StreamKernel::kTriad;
  if (text == "memcpy") return StreamKernel::kMemcpy;
  return std::nullopt;
}

// Every flag of one compute program (o.program), once: parse_compute_options and compute_usage_text both read these.
void declare_options(CLI::App& app, ComputeOptions& o) {
  using Text = const std::string;
  const ComputeProgram program = o.program;
  const bool matmul = program == ComputeProgram::kMatmul, membw = program == ComputeProgram::kMembw;
  if (matmul) {
    start_section(app, "Sizes (K/M = 1024-based)");
    const SweepFlags sweep = add_size_sweep(app, o.sweep, {"N", "smallest square side (default 1024)", "largest square side (default 4096)",
                                                           "additive step", "multiplicative step (default 2); conflicts with -i"});
    auto* sizes = add_value(app, "--sizes", "LIST", "explicit square sides, e.g. 512,1024,2048",
                            [&o](Text& v, Text& f) { o.explicit_sizes = parse_size_list(v, f); });
    auto* shapes = add_value(app, "--shapes", "LIST", "explicit MxNxK shapes, e.g. 4096x4096x1024,8192x8192x8192", [&o](Text& v, Text& f) {
      o.shapes.clear();
      for (const auto& item : split_list(v)) o.shapes.push_back(parse_shape(item, f));
      if (o.shapes.empty()) throw UsageError(f + " expects a comma-separated list of MxNxK");
    });
    sweep.exclude(sizes);
    sweep.exclude(shapes);
    sizes->excludes(shapes);
    record(app, {sweep.min, sweep.max, sweep.step, sweep.factor, sizes, shapes}, [&o](nlohmann::json& out) {
      out["shapes_mnk"] = nlohmann::json::array();
      for (const auto& shape : o.gemm_shapes()) out["shapes_mnk"].push_back({shape.m, shape.n, shape.k});
    });
    auto* dtypes = add_value(app, "-d,--datatype", "LIST",
              "float64 float32 (CPU, OpenBLAS); float32 tf32 float16 bfloat16 fp8 (GPU,\n"
              "cuBLASLt; fp8 needs sm_90+); comma list or all (default float32)",
              [&o](Text& v, Text& f) {
                const std::vector<GemmType> all = {GemmType::kFloat64, GemmType::kFloat32, GemmType::kTf32,
                                                   GemmType::kFloat16, GemmType::kBfloat16, GemmType::kFp8};
                o.gemm_types = parse_choice_list(v, f, parse_gemm_type, all, "GEMM type", "float64, float32, tf32, float16, bfloat16, fp8");
              });
    record_names(app, dtypes, "dtypes", o.gemm_types);
    auto* rotate = add_value(app, "--rotate", "N|auto", "input sets cycled through so small GEMMs do not run from cache (default auto)",
                             [&o](Text& v, Text& f) { o.rotate_sets = v == "auto" ? 0 : static_cast<int>(parse_integer(v, f, 1, 64)); });
    record(app, {rotate}, [&o](nlohmann::json& out) {
      out["rotate_sets"] = o.rotate_sets == 0 ? nlohmann::json("auto") : nlohmann::json(o.rotate_sets);
    });
  } else if (membw) {
    start_section(app, "Sizes (K/M/G = 1024-based)");
    const SweepFlags sweep = add_size_sweep(app, o.sweep, {"SIZE", "smallest bytes per array (default 128M)", "largest bytes per array (default 128M)",
                                                           "additive step", "multiplicative step; conflicts with -i"});
    auto* sizes = add_value(app, "--sizes", "LIST", "explicit bytes per array",
                            [&o](Text& v, Text& f) { o.explicit_sizes = parse_size_list(v, f); });
    sweep.exclude(sizes);
    record(app, {sweep.min, sweep.max, sweep.step, sweep.factor, sizes},
           [&o](nlohmann::json& out) { out["array_bytes"] = o.array_sizes(); });
    auto* kernels = add_value(app, "-k,--kernels", "LIST", "copy scale add triad memcpy (GPU: cudaMemcpy D2D), comma list or all",
              [&o](Text& v, Text& f) {
                const std::vector<StreamKernel> all = {StreamKernel::kCopy, StreamKernel::kScale, StreamKernel::kAdd,
                                                       StreamKernel::kTriad, StreamKernel::kMemcpy};
                o.kernels = parse_choice_list(v, f, parse_kernel, all, "kernel", "copy, scale, add, triad, memcpy");
                o.kernels_given = true;
              });
    record_names(app, kernels, "kernels", o.kernels);
  } else {
    start_section(app, "Probes");
    auto* slow_factor = add_value(app, "--slow-factor", "X", "fastest/rank ratio above which a rank is slow (default 1.5)", [&o](Text& v, Text& f) {
      o.slow_factor = parse_real(v, f, 1.0, 1000.0);
      if (!(o.slow_factor > 1.0)) throw UsageError(f + " must be greater than 1, got '" + v + "'");
    });
    record_as(app, slow_factor, "slow_factor", o.slow_factor);
    add_integer(app, "--repeats", "probe samples per metric, the same as -n; the median is used (default 7)", o.iterations, 1, 1000);
    add_real(app, "--probe-ms", "MS", "minimum length of one probe sample (default 60; longer than a time slice)", o.probe_ms, 1, 60000);
    record_as(app, add_value(app, "--probe-n", "N", "GEMM probe side (default 256)", [&o](Text& v, Text& f) { o.probe_matrix_n = parse_dimension(v, f); }),
              "probe_n", o.probe_matrix_n);
    auto* probe_bytes = add_value(app, "--probe-bytes", "SIZE", "triad probe bytes per array (default 32M)", [&o](Text& v, Text& f) {
      o.probe_bytes = parse_size(v, f);
      if (o.probe_bytes < 1024) throw UsageError(f + " must be at least 1K, got '" + v + "'");
    });
    record_as(app, probe_bytes, "probe_bytes", o.probe_bytes);
  }
  start_section(app, "Measurement");
  add_loop_flags(app, o, {program == ComputeProgram::kEnvcheck ? "probe samples" : "iterations"});
  add_run_flags(app, o);
  start_section(app, "Device");
  auto* device = add_value(app, "--device", "cpu|gpu|auto", "auto = the GPU when this build has CUDA and a GPU is visible (default auto)", [&o](Text& v, Text& f) {
    if (v == "auto") o.device = DeviceChoice::kAuto;
    else if (v == "cpu") o.device = DeviceChoice::kCpu;
    else if (v == "gpu") o.device = DeviceChoice::kGpu;
    else throw UsageError("unknown device '" + v + "' for " + f + " (use cpu, gpu or auto)");
  });
  record(app, {device}, [&o](nlohmann::json& out) { out["device"] = to_string(o.device); });
  add_integer(app, "-t,--threads",
              "CPU threads per rank (default 0 = every core this rank may run on).\n"
              "mpirun binds each rank to one core by default; to give a rank more cores run\n"
              "mpirun --bind-to none (one rank per node) or --map-by ppr:R:node:pe=T.",
              o.threads, 0, 4096);
  start_section(app, "Report");
  add_report_flags(app, o);
  add_seed_flag(app, o);
  add_help_flags(app, o);
  app.footer("OpenBLAS picks its kernels from the CPU it detects; an old OpenBLAS may pick a slow generic one\n"
             "(\"Prescott\") on a new CPU. The report records the choice and a warning names the OPENBLAS_CORETYPE to set.\n"
             "Exit codes: 0 ok, 1 runtime error, 2 bad usage, 3 wrong results" +
             std::string(program == ComputeProgram::kEnvcheck ? " or slow ranks found" : "") + ", 4 timeout.");
}

std::string description_of(ComputeProgram program) {
  switch (program) {
    case ComputeProgram::kMatmul:
      return "GEMM C = A x B on every rank's own device; every rank's figures and their spread are reported.";
    case ComputeProgram::kMembw:
      return "STREAM copy/scale/add/triad on every rank's own memory; every rank's figures and their spread are\n"
             "reported. GB/s = 1e9 bytes/s, counted as STREAM does (copy, scale 2 arrays; add, triad 3; no write-allocate).";
    case ComputeProgram::kEnvcheck:
      return "Inventory of every rank, then short compute (GEMM) and bandwidth (triad) probes, repeated; rank 0\n"
             "compares the medians and flags every rank slower than the fastest by more than --slow-factor.";
  }
  return "";
}

}  // namespace

std::string to_string(DeviceChoice device) {
  switch (device) {
    case DeviceChoice::kAuto: return "auto";
    case DeviceChoice::kCpu: return "cpu";
    case DeviceChoice::kGpu: return "gpu";
  }
  return "?";
}

std::string program_name(ComputeProgram program) {
  switch (program) {
    case ComputeProgram::kMatmul: return "matmul_perf";
    case ComputeProgram::kMembw: return "membw_perf";
    case ComputeProgram::kEnvcheck: return "envcheck";
  }
  return "?";
}

std::vector<GemmShape> ComputeOptions::gemm_shapes() const {
  if (!shapes.empty()) return shapes;
  std::vector<GemmShape> out;
  for (std::uint64_t n : array_sizes()) {
    const auto side = static_cast<std::int64_t>(n);
    out.push_back({side, side, side});
  }
  return out;
}

std::vector<std::uint64_t> ComputeOptions::array_sizes() const {
  if (!explicit_sizes.empty()) return explicit_sizes;
  return expand_sweep(sweep);
}

ComputeOptions parse_compute_options(ComputeProgram program, const std::vector<std::string>& args) {
  ComputeOptions options;
  options.program = program;
  if (program == ComputeProgram::kMatmul) options.sweep = {1024, 4096, 1024, 2.0};
  if (program == ComputeProgram::kMembw) options.sweep = {128u << 20, 128u << 20, 1u << 20, 0.0};
  if (program == ComputeProgram::kEnvcheck) {  // seven samples of each probe after one warm-up sample
    options.iterations = 7;
    options.warmup_iterations = 1;
  }
  options = parse_declared(args, options, declare_options);
  if (program == ComputeProgram::kMatmul && options.shapes.empty()) {
    for (std::uint64_t n : options.array_sizes()) {
      if (n > (1u << 20)) throw UsageError("matrix side " + std::to_string(n) + " is larger than 1048576 (-b/-e give N for matmul_perf)");
    }
  }
  if (program == ComputeProgram::kMembw) {
    for (std::uint64_t bytes : options.array_sizes()) {
      if (bytes < 8) throw UsageError("array size " + std::to_string(bytes) + " B holds no double (use at least 8)");
    }
  }
  if (!options.show_help && !options.show_version && program != ComputeProgram::kEnvcheck) options.array_sizes();
  // One probe sample reports no progress until it ends: a sample as long as -T would end a
  // healthy run with a misleading timeout.
  if (program == ComputeProgram::kEnvcheck && options.timeout_seconds > 0 && options.probe_ms / 1000 >= options.timeout_seconds) {
    throw UsageError("--probe-ms " + std::to_string(static_cast<long long>(options.probe_ms)) +
                     " makes one probe sample at least as long as -T; shorten it or raise -T");
  }
  return options;
}

nlohmann::json compute_options_json(const ComputeOptions& options) { return recorded_options(options, declare_options); }

std::string compute_usage_text(ComputeProgram program) {
  return declared_help("[mpirun -np N] " + program_name(program) + " [options]", description_of(program),
                       parse_compute_options(program, {}), declare_options);  // the program's own defaults, for --help
}

}  // namespace collbench::compute
