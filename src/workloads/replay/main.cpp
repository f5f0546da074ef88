// replay_perf: see src/workloads/replay/ and `replay_perf --help`.
#include "workloads/replay/replay_workload.h"

int main(int argc, char** argv) { return collbench::replay::run_replay_perf(argc, argv); }
