// pt2pt_perf as a workload of the one driver (harness/driver.h): OSU's point-to-point tests
// (--mode latency|bw|bibw|mbw_mr) and the link matrix (--matrix), over the backend's
// point-to-point primitive (backends/backend.h, PointToPointEntry).
#pragma once

namespace collbench::pt2pt {

// The entry point of pt2pt_perf (its main: main.cpp): the exit code (core/error.h).
int run_pt2pt_perf(int argc, char** argv);

}  // namespace collbench::pt2pt
