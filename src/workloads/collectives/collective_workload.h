// The collectives as a workload of the one driver (harness/driver.h): cases are dtype x op x root x
// size x placement, each a call of the backend's entry for the collective (workloads/collectives/collective.h
// says what it moves and what its outputs must be), checked against closed forms after timing.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "backends/backend.h"
#include "workloads/collectives/collective_options.h"
#include "harness/driver.h"
#include "workloads/collectives/collective.h"

namespace collbench {

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
BufferBytes largest_buffers(const Collective& collective, const CollectiveOptions& options, int ranks);

// Makes the run's backend once the world exists (tests pass their own).
using BackendMaker = std::function<std::unique_ptr<Backend>(World& world, const CollectiveOptions& options)>;

// The program of `collective`'s benchmark. `make_backend` empty: the backend registry's, by --backend.
ProgramSpec collective_program(const Collective& collective, CollectiveOptions options, BackendMaker make_backend = {});

}  // namespace collbench
