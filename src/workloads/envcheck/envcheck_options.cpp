#include "workloads/envcheck/envcheck_options.h"

#include <CLI/CLI.hpp>

#include "core/command_line.h"
#include "core/error.h"
#include "core/flag_values.h"
#include "core/sizes.h"

namespace collbench::compute {

void declare_envcheck_options(CLI::App& app, EnvcheckOptions& o) {
  using Text = const std::string;
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
  add_compute_flags(app, o, {"probe samples"}, "wrong results or slow ranks found");
}

EnvcheckOptions parse_envcheck_options(const std::vector<std::string>& args) {
  EnvcheckOptions options = parse_declared(args, EnvcheckOptions{}, declare_envcheck_options);
  // One probe sample reports no progress until it ends: a sample as long as -T would end a
  // healthy run with a misleading timeout.
  if (options.timeout_seconds > 0 && options.probe_ms / 1000 >= options.timeout_seconds) {
    throw UsageError("--probe-ms " + std::to_string(static_cast<long long>(options.probe_ms)) +
                     " makes one probe sample at least as long as -T; shorten it or raise -T");
  }
  return options;
}

}  // namespace collbench::compute
