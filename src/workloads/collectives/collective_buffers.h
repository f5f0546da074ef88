// The buffers of a collective run and what is done to them around the timed calls, the analogue of
// nccl-tests' verifiable/: the inputs written where the buffers live, the outputs poisoned, the
// buffers moved between calls, and the outputs checked against their closed forms after timing.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backends/backend.h"
#include "workloads/collectives/buffer_slices.h"
#include "workloads/collectives/collective.h"
#include "workloads/collectives/collective_options.h"
#include "workloads/collectives/collective_workload.h"

namespace collbench {

// One row of a collective's sweep: dtype x op x root x size x placement.
struct CollectiveCase {
  DType dtype;
  ReduceOp op;
  int root;  // -1 for collectives without one
  std::uint64_t requested_bytes;
  RowSize size;
  Placement placement;
  bool last_of_size;  // the table's line for this size follows it
  std::shared_ptr<const TrafficMatrix> traffic;  // collectives with per-peer counts (alltoallv); null otherwise
};

class CollectiveBuffers {
 public:
  // Sized once for the largest row of the run, like nccl-tests, so allocation and first-touch page
  // faults never land in a timed region. `entry`: the backend's entry for the collective (null:
  // every case skips, and nothing is issued).
  CollectiveBuffers(const Collective& collective, Backend& backend, const CollectiveEntry* entry, World& world,
                    const CollectiveOptions& options, const BufferBytes& largest);

  // Poisons the outputs and writes this rank's inputs; the case's call then works on the buffers'
  // first slice (the checks, -B) until start_moving(). `rounding`: -B's inputs for floating types
  // (bitwise.h rounding_input) instead of the checks'.
  void fill_inputs(const CollectiveCase& one_case, bool rounding = false);
  // Where the backend moves the buffers each call (nccl-tests' way): copies the inputs just
  // written into every slice the row's calls will use, and starts the calls cycling through them.
  void start_moving(const CollectiveCase& one_case);
  void issue_one_call();
  std::int64_t count_wrong(const CollectiveCase& one_case);
  // Copies `count` of this rank's output elements from element `first` on into the staging piece.
  unsigned char* read_outputs(const CollectiveCase& one_case, std::size_t first, std::size_t count);
  std::size_t staging_elements(DType dtype) const { return host_.size() / dtype_info(dtype).size_bytes; }
  const BufferSlices& slices() const { return slices_; }
  // Where this rank's outputs of the case come from (collective.h), for the check and -B.
  OutputContext output_context(const CollectiveCase& one_case) const;

 private:
  std::size_t unaligned_bytes(DType dtype) const {  // -u
    return static_cast<std::size_t>(options_.unaligned_elements) * dtype_info(dtype).size_bytes;
  }

  const Collective& collective_;
  Backend& backend_;
  const CollectiveEntry* entry_;
  World& world_;
  const CollectiveOptions& options_;
  std::unique_ptr<Buffer> send_;     // out of place: the inputs
  std::unique_ptr<Buffer> recv_;     // out of place: the outputs; in place: the one shared buffer
  std::vector<unsigned char> host_;  // staging for inputs and for reading outputs back, a piece at a time
  CollectiveCall call_;              // the current case's call, on the buffers' first slice
  PeerBlocks peer_blocks_;           // this rank's blocks of the current case (per-peer collectives)
  BufferSlices slices_;              // the current case's slices (count 1: the calls never move)
  std::size_t next_slice_ = 0;       // where the next timed call goes
  bool moving_ = false;              // timed calls cycle through the slices; off for checks and -B
};

}  // namespace collbench
