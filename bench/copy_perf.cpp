// copy_perf: see src/compute/copy_program.cpp and `copy_perf --help`.
#include "compute/programs.h"

int main(int argc, char** argv) { return collbench::compute::run_copy_perf(argc, argv); }
