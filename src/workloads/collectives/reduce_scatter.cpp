// reduce_scatter: rank r ends with block r of the element-wise reduction of every rank's input.
#include "workloads/collectives/collective.h"

namespace collbench {
namespace {

Expected expected(const OutputContext& where, std::size_t i) {
  return Expected::reduction_at(static_cast<std::size_t>(where.rank) * where.call_count + i);
}

}  // namespace

extern const Collective collective_reduce_scatter{"reduce_scatter", kTakesOp, kNoRoot, kBusFactorAllButOneShare, scattering_layout, expected};

}  // namespace collbench
