#include "workloads/matmul/matmul_options.h"

#include <CLI/CLI.hpp>

#include <optional>

#include "core/command_line.h"
#include "core/error.h"
#include "core/flag_values.h"

namespace collbench::compute {
namespace {

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

}  // namespace

void declare_matmul_options(CLI::App& app, MatmulOptions& o) {
  using Text = const std::string;
  start_section(app, "Sizes (K/M = 1024-based)");
  const SweepFlags sweep = add_size_sweep(app, o.sweep, {"N", "smallest square side (default 1024)", "largest square side (default 4096)",
                                                         "additive step", "multiplicative step (default 2); conflicts with -i"});
  auto* sizes = add_size_list(app, sweep, o.explicit_sizes, "explicit square sides, e.g. 512,1024,2048");
  auto* shapes = add_value(app, "--shapes", "LIST", "explicit MxNxK shapes, e.g. 4096x4096x1024,8192x8192x8192", [&o](Text& v, Text& f) {
    o.shapes.clear();
    for (const auto& item : split_list(v)) o.shapes.push_back(parse_shape(item, f));
    if (o.shapes.empty()) throw UsageError(f + " expects a comma-separated list of MxNxK");
  });
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
  add_compute_flags(app, o, {"iterations"}, "wrong results");
}

std::vector<std::uint64_t> MatmulOptions::square_sides() const { return explicit_sizes.empty() ? expand_sweep(sweep) : explicit_sizes; }

std::vector<GemmShape> MatmulOptions::gemm_shapes() const {
  if (!shapes.empty()) return shapes;
  std::vector<GemmShape> out;
  for (std::uint64_t n : square_sides()) {
    const auto side = static_cast<std::int64_t>(n);
    out.push_back({side, side, side});
  }
  return out;
}

MatmulOptions parse_matmul_options(const std::vector<std::string>& args) {
  MatmulOptions options = parse_declared(args, MatmulOptions{}, declare_matmul_options);
  if (options.shapes.empty()) {
    for (std::uint64_t n : options.square_sides()) {
      if (n > (1u << 20)) throw UsageError("matrix side " + std::to_string(n) + " is larger than 1048576 (-b/-e give N for matmul_perf)");
    }
  }
  if (!options.show_help && !options.show_version) options.square_sides();  // validates the sweep now
  return options;
}

}  // namespace collbench::compute
