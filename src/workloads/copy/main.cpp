// copy_perf: see src/workloads/copy/copy_program.cpp and `copy_perf --help`.
#include "workloads/copy/copy_program.h"

int main(int argc, char** argv) { return collbench::compute::run_copy_perf(argc, argv); }
