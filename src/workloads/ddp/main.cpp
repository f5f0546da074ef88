// ddp_step_perf: see src/workloads/ddp/ and `ddp_step_perf --help`.
#include "workloads/ddp/ddp_program.h"

int main(int argc, char** argv) { return collbench::ddp::run_ddp_step_perf(argc, argv); }
