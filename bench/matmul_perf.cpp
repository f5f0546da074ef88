// matmul_perf: see src/compute/ and `matmul_perf --help`.
#include "compute/programs.h"

int main(int argc, char** argv) { return collbench::compute::run_matmul_perf(argc, argv); }
