// reduce_scatter: rank r ends with block r of the element-wise reduction of every rank's input.
#include "workloads/collective.h"

namespace collbench {
namespace {

Expected expected(const OutputContext& where, std::size_t i) {
  return Expected::reduction_at(static_cast<std::size_t>(where.rank) * where.call_count + i);
}
void run(Backend& backend, const CollectiveCall& call) { backend.reduce_scatter(call); }

std::size_t in_place_output(const Backend& backend, const BufferLayout& layout, int rank) {
  return backend.in_place_reduce_scatter_output_at_start() ? 0 : static_cast<std::size_t>(rank) * layout.in_place_recv_stride;
}

}  // namespace

extern const Collective kReduceScatter{"reduce_scatter", true,     false, factor_all_but_one_share, scattering_layout,
                                       expected,         run,      in_place_output};

}  // namespace collbench
