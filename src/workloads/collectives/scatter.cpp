// scatter: rank r ends with block r of the root's input.
#include "workloads/collectives/collective.h"

namespace collbench {
namespace {

Expected expected(const OutputContext& where, std::size_t i) {
  return Expected::copy_of(where.root, static_cast<std::size_t>(where.rank) * where.call_count + i);
}

}  // namespace

extern const Collective collective_scatter{"scatter", kNoOp, kTakesRoot, kBusFactorAllButOneShare, scattering_layout, expected};

}  // namespace collbench
