// collbench sweep: one benchmark over a grid of world sizes, env settings and repeats.
#pragma once

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "summarize/common/document.h"

namespace collbench::summarize {

struct SweepSetting {
  std::string name;  // an environment variable: NCCL_ALGO, OMPI_MCA_coll_tuned_allreduce_algorithm, ...
  std::vector<std::string> values;
};

struct SweepOptions {
  std::vector<int> world_sizes = {1};
  std::vector<SweepSetting> settings;
  int repeat = 1;
  // The launcher's argument vector before the rank-count flag; empty means this machine's mpirun
  // (--oversubscribe, --allow-run-as-root as root, -x for each swept variable). {"none"} runs the
  // benchmark directly (one rank).
  std::vector<std::string> launcher;
  std::string np_flag;  // empty: "-n" for srun, "-np" otherwise
  std::string out_dir;
  std::vector<std::string> bench;  // program and its arguments
  double timeout_s = 0;            // per point; 0 = none
  bool as_root = false;            // for the default launcher's --allow-run-as-root
};

struct SweepPoint {
  int world_size = 1;
  std::vector<std::pair<std::string, std::string>> env;
  int repeat = 1;
  std::string name;  // file stem, unique in the grid: np4.NCCL_ALGO-ring.r1
};

// The grid in run order: world size outermost, then settings, repeats innermost.
std::vector<SweepPoint> expand_grid(const SweepOptions& options);

// The argument vector for one point; the report goes to report_path.
std::vector<std::string> point_command(const SweepOptions& options, const SweepPoint& point, const std::string& report_path);

// Checks what the run cannot fix later (throws InputError): a bench, an output folder, no -J of
// the user's own, world sizes >= 1, repeat >= 1, a launcher of "none" with one rank only.
void validate(const SweepOptions& options);

struct SweepOutcome {
  int points = 0, ran = 0, resumed = 0, failed = 0;
  Document document;  // the points and their status, for the terminal
};

// Runs the points not finished before (a finished point has a complete report), carries on past
// failures, records every point in DIR/sweep.manifest and DIR/sweep.md, and writes scaling and
// speedup tables (Markdown) and plots into DIR. Progress goes to `progress`.
SweepOutcome run_sweep(const SweepOptions& options, std::FILE* progress);

}  // namespace collbench::summarize
