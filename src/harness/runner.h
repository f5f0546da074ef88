// The runner owns everything a workload does not: the sweep over dtypes, ops, roots, sizes and
// placements; buffers; warm-up; timing; combining times across ranks; statistics; checks.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "harness/collective_options.h"
#include "core/world.h"
#include "report/report.h"
#include "workloads/collective.h"

namespace collbench {

class Watchdog;

// What the runner tells the rest of the program, on every rank, as rows complete.
struct RunnerEvents {
  std::function<void(const report::ResultRow&)> row_completed;
  // Both placements of one size are done (for the nccl-tests table line): nullptr where skipped.
  std::function<void(const report::ResultRow* out_of_place, const report::ResultRow* in_place)> size_completed;
  std::function<void(const report::SkippedCase&)> case_skipped;
};

// One row's size after rounding to whole elements per rank: nccl-tests' count, never 0.
struct RowSize {
  std::size_t row_count;  // elements in the size column
  BufferLayout layout;
};
RowSize row_size_for(const Collective& collective, std::uint64_t requested_bytes, DType dtype, int ranks);

// Bytes of the send buffer and of the receive (in place: shared) buffer for the largest row of the run.
struct BufferBytes {
  std::uint64_t send = 0, shared = 0;
};
BufferBytes largest_buffers(const Collective& collective, const Options& options, int ranks);

class CollectiveRunner {
 public:
  CollectiveRunner(const Collective& collective, const Options& options, World& world, Backend& backend,
                   Watchdog* watchdog, RunnerEvents events);
  // Runs the whole sweep: a case the backend does not support becomes a skipped row with its
  // reason. Throws Error on failures; rows completed so far were already reported.
  void run();

 private:
  struct Case {
    DType dtype;
    ReduceOp op;
    int root;
    int cycle;
  };
  struct Buffers;

  void run_case(const Case& one_case, Buffers& buffers);
  report::ResultRow measure(const Case& one_case, const RowSize& size, std::uint64_t requested_bytes,
                            Placement placement, Buffers& buffers);
  CollectiveCall prepare(const Case& one_case, const RowSize& size, Placement placement, Buffers& buffers);
  std::int64_t count_wrong(const Case& one_case, const RowSize& size, Placement placement, Buffers& buffers);
  std::size_t unaligned_bytes(DType dtype) const;  // -u

  const Collective& collective_;
  const Options& options_;
  World& world_;
  Backend& backend_;
  const CollectiveEntry* entry_;  // the backend's entry for this collective; nullptr: every case skips
  Watchdog* watchdog_;
  RunnerEvents events_;
};

}  // namespace collbench
