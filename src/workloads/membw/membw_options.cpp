#include "workloads/membw/membw_options.h"

#include <CLI/CLI.hpp>

#include <optional>

#include "core/command_line.h"
#include "core/error.h"
#include "core/flag_values.h"

namespace collbench::compute {
namespace {

const std::vector<StreamKernel> kKernels = {StreamKernel::kCopy, StreamKernel::kScale, StreamKernel::kAdd, StreamKernel::kTriad,
                                            StreamKernel::kMemcpy};

std::optional<StreamKernel> parse_kernel(const std::string& text) {
  for (StreamKernel kernel : kKernels) {
    if (text == to_string(kernel)) return kernel;
  }
  return std::nullopt;
}

}  // namespace

void declare_membw_options(CLI::App& app, MembwOptions& o) {
  using Text = const std::string;
  start_section(app, "Sizes (K/M/G = 1024-based)");
  const SweepFlags sweep = add_size_sweep(app, o.sweep, {"SIZE", "smallest bytes per array (default 128M)", "largest bytes per array (default 128M)",
                                                         "additive step", "multiplicative step; conflicts with -i"});
  auto* sizes = add_size_list(app, sweep, o.explicit_sizes, "explicit bytes per array");
  record(app, {sweep.min, sweep.max, sweep.step, sweep.factor, sizes},
         [&o](nlohmann::json& out) { out["array_bytes"] = o.array_sizes(); });
  auto* kernels = add_value(app, "-k,--kernels", "LIST", "copy scale add triad memcpy (GPU: cudaMemcpy D2D), comma list or all",
            [&o](Text& v, Text& f) {
              o.kernels = parse_choice_list(v, f, parse_kernel, kKernels, "kernel", "copy, scale, add, triad, memcpy");
              o.kernels_given = true;
            });
  record_names(app, kernels, "kernels", o.kernels);
  add_compute_flags(app, o, {"iterations"}, "wrong results");
}

std::vector<std::uint64_t> MembwOptions::array_sizes() const { return explicit_sizes.empty() ? expand_sweep(sweep) : explicit_sizes; }

MembwOptions parse_membw_options(const std::vector<std::string>& args) {
  MembwOptions options = parse_declared(args, MembwOptions{}, declare_membw_options);
  for (std::uint64_t bytes : options.array_sizes()) {
    if (bytes < 8) throw UsageError("array size " + std::to_string(bytes) + " B holds no double (use at least 8)");
  }
  return options;
}

}  // namespace collbench::compute
