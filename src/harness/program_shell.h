// The one program shell of every collbench executable (the collectives, matmul_perf, membw_perf,
// envcheck, copy_perf): options parsed before MPI (usage errors printed once, exit 2), help and
// version, Ctrl-C and SIGTERM (harness/interrupt_watcher.h), the World chosen from the launch
// (harness/launcher_env.h: MPI under mpirun/srun; Gloo over a rendezvous store from RANK and
// WORLD_SIZE variables, without MPI_Init), the same options on every rank (harness/agreement.h),
// the program's own checks, memory, the report path, -T (harness/job_watchdog.h), the report's
// life (harness/report_writer.h) and the exit code.
// A program only describes itself (ProgramSpec) and measures through the driver (harness/driver.h).
#pragma once

#include <string>
#include <vector>

#include "harness/program_spec.h"

namespace collbench {

// Parses the arguments (without argv[0]); throws UsageError.
using ProgramParser = std::function<ProgramSpec(const std::vector<std::string>& args)>;

// The process exit code (core/error.h); ends the whole job on errors that one rank alone saw.
int run_program(const std::string& program_name, int argc, char** argv, const ProgramParser& parse);

}  // namespace collbench
