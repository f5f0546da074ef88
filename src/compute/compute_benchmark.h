// matmul_perf, membw_perf and envcheck as programs of the harness's shell (harness/program_shell.h):
// what they share (options, identity, help, report context, row extras); each program adds its
// workload over an engine (compute/engines.h) and measures it through harness/measurement_loop.h.
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compute/compute_options.h"
#include "core/world.h"
#include "harness/program_shell.h"
#include "report/report.h"

namespace collbench::compute {

class ComputeBenchmark : public Program {
 public:
  explicit ComputeBenchmark(ComputeOptions options) : options_(std::move(options)) {}

  const RunFlags& run_flags() const override { return options_; }
  std::string help_text() const override { return compute_usage_text(options_.program); }
  std::string build_features() const override;
  std::string options_identity() const override;
  std::string check_for_world(World&) override { return ""; }

 protected:
  // Whether this rank's buffers will be in host memory (the CPU engines), so that their size is
  // checked before anything is allocated; GPU engines allocate on the device.
  bool runs_on_host() const;
  // The report context of a compute run: every rank's identity (collective call) and these options.
  report::Context context(World& world, const std::string& device, const std::vector<std::string>& argv) const;

  ComputeOptions options_;
};

// What a compute row holds besides its typed fields: the cycle (-N) and, with --samples, every
// iteration's time combined over ranks. Written as extra keys of the row (schema 2.x adds keys).
struct RowExtras {
  int cycle = 1;
  std::vector<double> samples_us;
};
nlohmann::json with_row_extras(nlohmann::json document, const std::vector<RowExtras>& extras);

nlohmann::json compute_options_as_json(const ComputeOptions& options);

// Rows, checked rows, wrong elements, the best rate and the worst fastest/slowest rank ratio.
template <typename Row>
report::ComputeSummary summarize_throughput(const std::vector<Row>& rows, double Row::*rate) {
  report::ComputeSummary summary;
  for (const Row& row : rows) {
    ++summary.rows;
    if (row.wrong) {
      ++summary.rows_checked;
      summary.wrong_total += *row.wrong;
    }
    summary.max_rate = std::max(summary.max_rate.value_or(0.0), row.*rate);
    if (std::isfinite(row.spread.ratio)) {
      summary.worst_spread_ratio = std::max(summary.worst_spread_ratio.value_or(1.0), row.spread.ratio);
    }
  }
  return summary;
}

// The shell around one compute program; `make` builds it from the parsed options.
template <typename Benchmark>
int run_compute_benchmark(ComputeProgram program, int argc, char** argv) {
  return run_program(program_name(program), argc, argv, [program](const std::vector<std::string>& args) {
    return std::make_unique<Benchmark>(parse_compute_options(program, args));
  });
}

}  // namespace collbench::compute
