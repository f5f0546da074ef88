// all_gather: every rank ends with every rank's block, in rank order.
#include "workloads/collectives/collective.h"

namespace collbench {
namespace {

Expected expected(const OutputContext& where, std::size_t i) {
  return Expected::copy_of(static_cast<int>(i / where.call_count), i % where.call_count);
}

}  // namespace

extern const Collective collective_all_gather{"all_gather", kNoOp, kNoRoot, kBusFactorAllButOneShare,
                                              gathering_layout, expected, kSameOutputOnEveryRank};

}  // namespace collbench
