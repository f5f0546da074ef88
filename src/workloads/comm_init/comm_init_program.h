// comm_init_perf's entry point (its main: main.cpp).
#pragma once

namespace collbench {

// Returns the process exit code (core/error.h).
int run_comm_init_perf(int argc, char** argv);

}  // namespace collbench
