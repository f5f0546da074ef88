// The main of every collective executable; CMake builds it once per collective with
// COLLBENCH_COLLECTIVE set to the workload's name ("all_reduce" -> all_reduce_perf).
#include "workloads/collectives/perf_main.h"

int main(int argc, char** argv) { return collbench::run_collective_perf(COLLBENCH_COLLECTIVE, argc, argv); }
