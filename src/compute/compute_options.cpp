#include "compute/compute_options.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <optional>
#include <sstream>

#include "core/error.h"
#include "core/flag_values.h"

namespace collbench::compute {
namespace {

// Which programs accept a flag.
constexpr unsigned kMatmul = 1, kMembw = 2, kEnvcheck = 4, kAll = 7;

unsigned bit_of(ComputeProgram program) {
  switch (program) {
    case ComputeProgram::kMatmul: return kMatmul;
    case ComputeProgram::kMembw: return kMembw;
    case ComputeProgram::kEnvcheck: return kEnvcheck;
  }
  return 0;
}

struct Flag {
  char short_name;
  const char* long_name;
  unsigned programs;
  bool takes_value;
  std::function<void(ComputeOptions&, const std::string& value, const std::string& flag)> apply;
};




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


const std::vector<Flag>& flags() {
  using O = ComputeOptions;
  using S = const std::string;
  static const std::vector<Flag> table = {
      {'b', "minbytes", kMatmul | kMembw, true, [](O& o, S& v, S& f) { o.sweep.min_bytes = parse_size(v, f); }},
      {'e', "maxbytes", kMatmul | kMembw, true, [](O& o, S& v, S& f) { o.sweep.max_bytes = parse_size(v, f); }},
      {'i', "stepbytes", kMatmul | kMembw, true, [](O& o, S& v, S& f) { o.sweep.step_bytes = parse_size(v, f); }},
      {'f', "stepfactor", kMatmul | kMembw, true, [](O& o, S& v, S& f) {
         o.sweep.step_factor = parse_real(v, f, 1.0, 1e6);
         if (!(o.sweep.step_factor > 1.0)) throw UsageError(f + " must be greater than 1, got '" + v + "'");
       }},
      {0, "sizes", kMatmul | kMembw, true, [](O& o, S& v, S& f) {
         o.explicit_sizes.clear();
         for (const auto& item : split_list(v)) {
           const auto size = parse_size(item, f);
           if (size == 0) throw UsageError(f + " sizes must be at least 1");
           o.explicit_sizes.push_back(size);
         }
         if (o.explicit_sizes.empty()) throw UsageError(f + " expects a comma-separated list of sizes");
       }},
      {0, "shapes", kMatmul, true, [](O& o, S& v, S& f) {
         o.shapes.clear();
         for (const auto& item : split_list(v)) o.shapes.push_back(parse_shape(item, f));
         if (o.shapes.empty()) throw UsageError(f + " expects a comma-separated list of MxNxK");
       }},
      {'d', "datatype", kMatmul, true, [](O& o, S& v, S& f) {
         o.gemm_types.clear();
         const std::string list = v == "all" ? "float64,float32,tf32,float16,bfloat16,fp8" : v;
         for (const auto& item : split_list(list)) {
           const auto type = parse_gemm_type(item);
           if (!type) throw UsageError("unknown GEMM type '" + item + "' for " + f + " (use float64, float32, tf32, float16, bfloat16, fp8 or all)");
           o.gemm_types.push_back(*type);
         }
         if (o.gemm_types.empty()) throw UsageError(f + " expects at least one type");
       }},
      {'k', "kernels", kMembw, true, [](O& o, S& v, S& f) {
         o.kernels.clear();
         const std::string list = v == "all" ? "copy,scale,add,triad,memcpy" : v;
         for (const auto& item : split_list(list)) {
           const auto kernel = parse_kernel(item);
           if (!kernel) throw UsageError("unknown kernel '" + item + "' for " + f + " (use copy, scale, add, triad, memcpy or all)");
           o.kernels.push_back(*kernel);
         }
         if (o.kernels.empty()) throw UsageError(f + " expects at least one kernel");
         o.kernels_given = true;
       }},
      {'n', "iters", kMatmul | kMembw, true, [](O& o, S& v, S& f) { o.iterations = static_cast<int>(parse_integer(v, f, 1, 100000000)); }},
      {'w', "warmup_iters", kMatmul | kMembw, true, [](O& o, S& v, S& f) { o.warmup_iterations = static_cast<int>(parse_integer(v, f, 0, 100000000)); }},
      {'c', "check", kMatmul | kMembw, true, [](O& o, S& v, S& f) { o.check_iterations = static_cast<int>(parse_integer(v, f, 0, 1000)); }},
      {'t', "threads", kAll, true, [](O& o, S& v, S& f) { o.threads = static_cast<int>(parse_integer(v, f, 0, 4096)); }},
      {0, "rotate", kMatmul, true, [](O& o, S& v, S& f) { o.rotate_sets = v == "auto" ? 0 : static_cast<int>(parse_integer(v, f, 1, 64)); }},
      {0, "device", kAll, true, [](O& o, S& v, S& f) {
         if (v == "auto") o.device = DeviceChoice::kAuto;
         else if (v == "cpu") o.device = DeviceChoice::kCpu;
         else if (v == "gpu") o.device = DeviceChoice::kGpu;
         else throw UsageError("unknown device '" + v + "' for " + f + " (use cpu, gpu or auto)");
       }},
      {0, "slow-factor", kEnvcheck, true, [](O& o, S& v, S& f) {
         o.slow_factor = parse_real(v, f, 1.0, 1000.0);
         if (!(o.slow_factor > 1.0)) throw UsageError(f + " must be greater than 1, got '" + v + "'");
       }},
      {0, "repeats", kEnvcheck, true, [](O& o, S& v, S& f) { o.probe_repeats = static_cast<int>(parse_integer(v, f, 1, 1000)); }},
      {0, "probe-ms", kEnvcheck, true, [](O& o, S& v, S& f) { o.probe_ms = parse_real(v, f, 1, 60000); }},
      {0, "probe-n", kEnvcheck, true, [](O& o, S& v, S& f) { o.probe_matrix_n = parse_dimension(v, f); }},
      {0, "probe-bytes", kEnvcheck, true, [](O& o, S& v, S& f) {
         o.probe_bytes = parse_size(v, f);
         if (o.probe_bytes < 1024) throw UsageError(f + " must be at least 1K, got '" + v + "'");
       }},
      {'J', "report", kAll, true, [](O& o, S& v, S& f) {
         if (v.empty()) throw UsageError(f + " expects a file path");
         o.report_path = v;
       }},
      {0, "overwrite", kAll, false, [](O& o, S&, S&) { o.overwrite_report = true; }},
      {0, "tag", kAll, true, [](O& o, S& v, S& f) {
         auto [key, tag_value] = parse_tag(v, f);
         o.tags[key] = std::move(tag_value);
       }},
      {0, "seed", kAll, true, [](O& o, S& v, S& f) { o.seed = static_cast<std::uint64_t>(parse_integer(v, f, 0, 1LL << 40)); }},
      {0, "inject-corrupt-output", kMatmul | kMembw, false, [](O& o, S&, S&) { o.inject_corrupt_output = true; }},
      {'h', "help", kAll, false, [](O& o, S&, S&) { o.show_help = true; }},
      {0, "version", kAll, false, [](O& o, S&, S&) { o.show_version = true; }},
  };
  return table;
}

const Flag* find_flag(const std::string& long_name, char short_name, unsigned program) {
  for (const auto& flag : flags()) {
    const bool named = short_name ? flag.short_name == short_name : long_name == flag.long_name;
    if (named && (flag.programs & program)) return &flag;
  }
  return nullptr;
}

}  // namespace

std::string to_string(GemmType type) {
  switch (type) {
    case GemmType::kFloat64: return "float64";
    case GemmType::kFloat32: return "float32";
    case GemmType::kTf32: return "tf32";
    case GemmType::kFloat16: return "float16";
    case GemmType::kBfloat16: return "bfloat16";
    case GemmType::kFp8: return "fp8";
  }
  return "?";
}

std::string to_string(StreamKernel kernel) {
  switch (kernel) {
    case StreamKernel::kCopy: return "copy";
    case StreamKernel::kScale: return "scale";
    case StreamKernel::kAdd: return "add";
    case StreamKernel::kTriad: return "triad";
    case StreamKernel::kMemcpy: return "memcpy";
  }
  return "?";
}

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
  const unsigned mask = bit_of(program);
  bool seen_step_bytes = false, seen_step_factor = false, seen_sweep = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const FlagOccurrence occurrence = read_flag(args[i]);
    const Flag* flag = find_flag(occurrence.long_name, occurrence.short_name, mask);
    const std::string& shown = occurrence.shown;
    if (!flag) throw UsageError("unknown option '" + shown + "' for " + program_name(program) + " (see --help)");
    const std::string value = flag_value(occurrence, flag->takes_value, args, i);
    flag->apply(options, value, shown);
    const std::string name = flag->long_name;
    seen_step_bytes |= name == "stepbytes";
    seen_step_factor |= name == "stepfactor";
    seen_sweep |= name == "minbytes" || name == "maxbytes" || name == "stepbytes" || name == "stepfactor";
  }
  if (seen_step_bytes && seen_step_factor) throw UsageError("-i (step) and -f (step factor) conflict: give one of them");
  if ((!options.explicit_sizes.empty() || !options.shapes.empty()) && seen_sweep) {
    throw UsageError("--sizes/--shapes conflict with -b/-e/-i/-f: give a list or a sweep, not both");
  }
  if (!options.explicit_sizes.empty() && !options.shapes.empty()) throw UsageError("--sizes and --shapes conflict: give one of them");
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
  return options;
}

std::string compute_usage_text(ComputeProgram program) {
  std::ostringstream out;
  out << "usage: [mpirun -np N] " << program_name(program) << " [options]\n\n";
  if (program == ComputeProgram::kMatmul) {
    out << "GEMM C = A x B on every rank's own device; every rank's figures and their spread are reported.\n"
        << "Sizes (K/M = 1024-based):\n"
        << "  -b, -e N                  smallest and largest square side (default 1024, 4096)\n"
        << "  -f X / -i N               multiplicative (default 2) or additive step\n"
        << "      --sizes LIST          explicit square sides, e.g. 512,1024,2048\n"
        << "      --shapes LIST         explicit MxNxK shapes, e.g. 4096x4096x1024,8192x8192x8192\n"
        << "  -d, --datatype LIST       float64 float32 (CPU, OpenBLAS); float32 tf32 float16 bfloat16 fp8 (GPU,\n"
        << "                            cuBLASLt; fp8 needs sm_90+); comma list or all (default float32)\n"
        << "      --rotate N|auto       input sets cycled through so small GEMMs do not run from cache (default auto)\n";
  } else if (program == ComputeProgram::kMembw) {
    out << "STREAM copy/scale/add/triad on every rank's own memory; every rank's figures and their spread are\n"
        << "reported. GB/s = 1e9 bytes/s, counted as STREAM does (copy, scale 2 arrays; add, triad 3; no write-allocate).\n"
        << "  -b, -e SIZE               smallest and largest bytes per array (default 128M)\n"
        << "  -f X / -i SIZE            multiplicative or additive step\n"
        << "      --sizes LIST          explicit bytes per array\n"
        << "  -k, --kernels LIST        copy scale add triad memcpy (GPU: cudaMemcpy D2D), comma list or all\n";
  } else {
    out << "Inventory of every rank, then short compute (GEMM) and bandwidth (triad) probes, repeated; rank 0\n"
        << "compares the medians and flags every rank slower than the fastest by more than --slow-factor.\n"
        << "      --slow-factor X       fastest/rank ratio above which a rank is slow (default 1.5)\n"
        << "      --repeats N           probe samples per metric; the median is used (default 7)\n"
        << "      --probe-ms MS         minimum length of one probe sample (default 60; longer than a time slice)\n"
        << "      --probe-n N           GEMM probe side (default 256)\n"
        << "      --probe-bytes SIZE    triad probe bytes per array (default 32M)\n";
  }
  if (program != ComputeProgram::kEnvcheck) {
    out << "Measurement:\n"
        << "  -n, --iters N             timed iterations per row (default 20)\n"
        << "  -w, --warmup_iters N      untimed warm-up iterations (default 5)\n"
        << "  -c, --check N             untimed checks after timing (default 1; 0 = none)\n";
  }
  out << "Device:\n"
      << "      --device cpu|gpu|auto   auto = the GPU when this build has CUDA and a GPU is visible (default auto)\n"
      << "  -t, --threads N           CPU threads per rank (default 0 = every core this rank may run on).\n"
      << "                            mpirun binds each rank to one core by default; to give a rank more cores run\n"
      << "                            mpirun --bind-to none (one rank per node) or --map-by ppr:R:node:pe=T.\n"
      << "Report:\n"
      << "  -J, --report PATH         write a JSON report (never replaces an existing file)\n"
      << "      --overwrite           allow -J to replace an existing file\n"
      << "      --tag KEY=VALUE       label copied into the report (repeatable)\n"
      << "      --seed N              seed of the random inputs (default 1)\n";
  if (program != ComputeProgram::kEnvcheck) {
    out << "      --inject-corrupt-output  testing aid: corrupt one checked output element (expect exit 3)\n";
  }
  out << "  -h, --help                this text\n"
      << "      --version             version and build features\n\n"
      << "OpenBLAS picks its kernels from the CPU it detects; an old OpenBLAS may pick a slow generic one\n"
      << "(\"Prescott\") on a new CPU. The report records the choice and a warning names the OPENBLAS_CORETYPE to set.\n"
      << "Exit codes: 0 ok, 1 runtime error, 2 bad usage, 3 wrong results"
      << (program == ComputeProgram::kEnvcheck ? " or slow ranks found" : "") << ".\n";
  return out.str();
}

}  // namespace collbench::compute
