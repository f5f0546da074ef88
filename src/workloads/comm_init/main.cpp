// comm_init_perf: see src/workloads/comm_init/comm_init_program.cpp and `comm_init_perf --help`.
#include "workloads/comm_init/comm_init_program.h"

int main(int argc, char** argv) { return collbench::run_comm_init_perf(argc, argv); }
