// alltoallv's uneven traffic over a run (traffic.h has the matrices): the --matrix file read once
// the world's size is known, or the generator's row for each size of the sweep, and what the
// collective workload takes from them: its cases, its buffers, each row's traffic fields and each
// call's per-peer blocks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include <nlohmann/json.hpp>
#include "workloads/collectives/collective_buffers.h"
#include "workloads/collectives/traffic.h"

namespace collbench {

class RunTraffic {
 public:
  explicit RunTraffic(const CollectiveOptions& options) : options_(options) {}

  // Usage errors that need the world: more hot ranks than ranks, a bad --matrix file (rank 0
  // reads it and every rank parses the same text, so all fail alike).
  void check_for_world(World& world);
  // The cases of the sweep: one per dtype, size and placement (the matrix file has one size).
  std::vector<CollectiveCase> cases(const Collective& collective, const std::vector<Placement>& placements, int ranks, int rank) const;
  // Every rank sizes for the busiest rank: no rank sends or receives more.
  BufferBytes largest_buffers(int ranks) const;
  // A row's "traffic": the pattern, the seed and the bytes each rank and pair moved. Its size
  // (bytes) is the busiest rank's bytes, as nccl-tests'.
  nlohmann::json row(const CollectiveCase& one_case) const;
  // Where the per-pair sizes come from and what the size column means, for the table's header.
  std::string description() const;

 private:
  // The row's traffic for a size of the sweep (the matrix file's, whatever the size).
  TrafficMatrix matrix_for(DType dtype, std::uint64_t requested_bytes, int ranks) const;
  std::vector<std::uint64_t> sizes() const {
    return options_.traffic.from_matrix() ? std::vector<std::uint64_t>{0} : options_.requested_sizes();
  }

  const CollectiveOptions& options_;
  std::optional<ByteMatrix> byte_matrix_;  // --matrix, read once the world's size is known
};

// `rank`'s blocks of a row: what it sends to and receives from each rank, and where.
PeerBlocks peer_blocks_of(const TrafficMatrix& traffic, int rank);

}  // namespace collbench
