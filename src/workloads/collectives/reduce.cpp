// reduce: the root ends with the element-wise reduction of every rank's input.
#include "workloads/collectives/collective.h"

namespace collbench {
namespace {

Expected expected(const OutputContext& where, std::size_t i) {
  return where.rank == where.root ? Expected::reduction_at(i) : Expected::unchecked();
}

}  // namespace

extern const Collective collective_reduce{"reduce", kTakesOp, kTakesRoot, kBusFactorOne, whole_buffer_layout, expected};

}  // namespace collbench
