// The life of matmul_perf, membw_perf and envcheck around their measurements: options parsed before
// MPI (usage errors printed once, exit 2), MPI, the report path agreed by every rank, the report's
// context, and errors that end the whole job (one line, MPI_Abort) instead of hanging it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compute/compute_options.h"
#include "core/world.h"
#include "report/report.h"

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

int run_compute_program(ComputeProgram program, int argc, char** argv, ProgramBody& body);

// The report context of a compute run: every rank's identity (collective call) and these options.
report::Context compute_context(World& world, const std::string& device, const ProgramSetup& setup,
                                const ComputeOptions& options);

nlohmann::json compute_options_as_json(const ComputeOptions& options);

}  // namespace collbench::compute
