// pt2pt_perf: see src/workloads/pt2pt/ and `pt2pt_perf --help`.
#include "workloads/pt2pt/pt2pt_workload.h"

int main(int argc, char** argv) { return collbench::pt2pt::run_pt2pt_perf(argc, argv); }
