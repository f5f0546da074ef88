// alltoallv: rank r sends traffic(r, q) elements to rank q, the blocks back to back in rank order
// on both sides (MPI_Alltoallv's packed displacements); element i of rank r's output is the
// element its sender placed at the same position of its block for r. The traffic comes from
// --pattern or --matrix (traffic.h); its bus bandwidth is nccl-tests' (traffic.h,
// alltoallv_bus_bandwidth_gbps): the busiest rank's bytes over the time, times (n - 1) / n.
#include "workloads/collectives/collective.h"

namespace collbench {
namespace {

// call_count is the busiest rank's elements, the same on every rank: a backend that takes counts
// and displacements as int (MPI) judges the row by it.
BufferLayout traffic_layout(const TrafficMatrix& traffic, int rank) {
  return {traffic.busiest_elements(), traffic.sent_by(rank), traffic.received_by(rank), 0, 0};
}

Expected expected(const OutputContext& where, std::size_t i) {
  if (!where.traffic) return Expected::unchecked();
  const TrafficMatrix::Source source = where.traffic->source_of(where.rank, i);
  return Expected::copy_of(source.rank, source.index);
}

}  // namespace

extern const Collective collective_alltoallv{"alltoallv", kNoOp, kNoRoot, kBusFactorAllButOneShare,
                                            alltoall_layout, expected, kOutputPerRank, traffic_layout};

}  // namespace collbench
