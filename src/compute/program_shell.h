// The life of matmul_perf, membw_perf and envcheck around their measurements: options parsed before
// MPI (usage errors printed once, exit 2), MPI, the report path agreed by every rank, the report's
// context, and errors that end the whole job (one line, MPI_Abort) instead of hanging it.
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "compute/compute_options.h"
#include "harness/context.h"
#include "core/world.h"
#include "report/report.h"
#include "report/report_file.h"
#include "report/report_json.h"

namespace collbench::compute {

struct ProgramSetup {
  std::string program;              // "matmul_perf"
  std::vector<std::string> argv;
  std::optional<std::string> report_path;  // rank 0 only, checked writable
};

class ProgramBody {
 public:
  virtual ~ProgramBody() = default;
  // Returns the exit code; throws on failures (the shell saves a partial report and aborts).
  virtual int measure(World& world, const ComputeOptions& options, const ProgramSetup& setup) = 0;
  // Rank 0: write what was measured with status "partial" and `error`.
  virtual void save_partial(const std::string& error) = 0;
};

// A ProgramBody that keeps its report and rewrites it on disk (rank 0, with -J) whenever asked,
// so a run that fails part-way leaves every completed row behind.
template <typename Report>
class ReportingProgram : public ProgramBody {
 public:
  void save_partial(const std::string& error) override {
    report_.error = error;
    report_.context.end_time = utc_timestamp_now();
    save();
  }

 protected:
  void save() const {
    if (report_path_) report::write_json_atomically(*report_path_, report::to_json(report_));
  }

  Report report_;
  std::optional<std::string> report_path_;
};

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

int run_compute_program(ComputeProgram program, int argc, char** argv, ProgramBody& body);

// The report context of a compute run: every rank's identity (collective call) and these options.
report::Context compute_context(World& world, const std::string& device, const ProgramSetup& setup,
                                const ComputeOptions& options);

nlohmann::json compute_options_as_json(const ComputeOptions& options);

}  // namespace collbench::compute
