// all_reduce: every rank ends with the element-wise reduction of every rank's input.
#include "workloads/collectives/collective.h"

namespace collbench {
namespace {

Expected expected(const OutputContext&, std::size_t i) { return Expected::reduction_at(i); }

}  // namespace

extern const Collective collective_all_reduce{"all_reduce", kTakesOp, kNoRoot, kBusFactorTwiceAllButOneShare,
                                              whole_buffer_layout, expected, kSameOutputOnEveryRank};

}  // namespace collbench
