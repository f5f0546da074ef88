// The whole life of one *_perf executable: options, MPI, backend, runner, table, report, exit code.
#pragma once

#include <string_view>

namespace collbench {

// Returns the process exit code (see core/error.h); aborts the job on errors one rank alone saw.
int run_collective_perf(std::string_view collective_name, int argc, char** argv);

}  // namespace collbench
