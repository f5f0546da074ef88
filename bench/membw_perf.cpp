// membw_perf: see src/compute/ and `membw_perf --help`.
#include "compute/programs.h"

int main(int argc, char** argv) { return collbench::compute::run_membw_perf(argc, argv); }
