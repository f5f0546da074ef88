// matmul_perf: see src/workloads/matmul/ and `matmul_perf --help`.
#include "workloads/matmul/matmul_program.h"

int main(int argc, char** argv) { return collbench::compute::run_matmul_perf(argc, argv); }
