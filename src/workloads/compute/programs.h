// Entry points of the compute executables (bench/matmul_perf.cpp, ...). Each returns the exit code.
#pragma once

namespace collbench::compute {

int run_matmul_perf(int argc, char** argv);
int run_membw_perf(int argc, char** argv);
int run_envcheck(int argc, char** argv);
int run_copy_perf(int argc, char** argv);

}  // namespace collbench::compute
