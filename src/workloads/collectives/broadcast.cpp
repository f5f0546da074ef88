// broadcast: the root's input reaches every rank.
#include "workloads/collectives/collective.h"

namespace collbench {
namespace {

Expected expected(const OutputContext& where, std::size_t i) {
  // Out of place, MPI's root sends from its send buffer and never writes its receive buffer.
  if (where.rank == where.root && !where.in_place) return Expected::unchecked();
  return Expected::copy_of(where.root, i);
}

}  // namespace

extern const Collective collective_broadcast{"broadcast", kNoOp, kTakesRoot, kBusFactorOne,
                                             whole_buffer_layout, expected, kSameOutputOnEveryRank};

}  // namespace collbench
