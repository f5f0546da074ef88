// membw_perf: see src/workloads/membw/ and `membw_perf --help`.
#include "workloads/membw/membw_program.h"

int main(int argc, char** argv) { return collbench::compute::run_membw_perf(argc, argv); }
