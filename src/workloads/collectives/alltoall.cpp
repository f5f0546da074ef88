// alltoall: block q of rank r's output is block r of rank q's input.
#include "workloads/collectives/collective.h"

namespace collbench {

BufferLayout alltoall_layout(std::size_t row_count, int ranks, std::size_t element_bytes) {
  const std::size_t block = aligned_rank_block(row_count, ranks, element_bytes);
  const std::size_t total = block * static_cast<std::size_t>(ranks);
  return {block, total, total, 0, 0};
}

namespace {

Expected expected(const OutputContext& where, std::size_t i) {
  const auto source = static_cast<int>(i / where.call_count);
  return Expected::copy_of(source, static_cast<std::size_t>(where.rank) * where.call_count + i % where.call_count);
}

}  // namespace

extern const Collective collective_alltoall{"alltoall", kNoOp, kNoRoot, kBusFactorAllButOneShare, alltoall_layout, expected};

}  // namespace collbench
