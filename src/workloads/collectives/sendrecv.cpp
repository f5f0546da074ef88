// sendrecv: a ring exchange; every rank sends to rank + 1 and receives from rank - 1.
#include "workloads/collectives/collective.h"

namespace collbench {
namespace {

Expected expected(const OutputContext& where, std::size_t i) {
  return Expected::copy_of((where.rank - 1 + where.ranks) % where.ranks, i);
}

}  // namespace

extern const Collective collective_sendrecv{"sendrecv", kNoOp, kNoRoot, kBusFactorOne, whole_buffer_layout, expected};

}  // namespace collbench
