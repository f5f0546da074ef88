// replay_perf as a workload of the one driver (harness/driver.h, issue 61): every rank issues its
// own sequence of a recorded job's calls (workloads/replay/report/trace.h), in order, on communicators made
// once from the trace's groups, on mpi, gloo or nccl. One case: a pass over the whole sequence,
// timed by the measurement loop; each call's time inside a pass makes the rows per bucket
// (replay_plan.h).
#pragma once

namespace collbench::replay {

// The main of bench/replay_perf.cpp: the exit code (core/error.h).
int run_replay_perf(int argc, char** argv);

}  // namespace collbench::replay
