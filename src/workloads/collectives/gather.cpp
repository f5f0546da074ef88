// gather: the root ends with every rank's block, in rank order.
#include "workloads/collectives/collective.h"

namespace collbench {
namespace {

Expected expected(const OutputContext& where, std::size_t i) {
  if (where.rank != where.root) return Expected::unchecked();
  return Expected::copy_of(static_cast<int>(i / where.call_count), i % where.call_count);
}

}  // namespace

extern const Collective collective_gather{"gather", kNoOp, kTakesRoot, kBusFactorAllButOneShare, gathering_layout, expected};

}  // namespace collbench
