#include "workloads/collectives/collective.h"

namespace collbench {

std::size_t aligned_rank_block(std::size_t row_count, int ranks, std::size_t element_bytes) {
  const std::size_t elements_per_16_bytes = element_bytes >= 16 ? 1 : 16 / element_bytes;
  return (row_count / static_cast<std::size_t>(ranks)) & ~(elements_per_16_bytes - 1);
}

BufferLayout whole_buffer_layout(std::size_t row_count, int /*ranks*/, std::size_t /*element_bytes*/) {
  return {row_count, row_count, row_count, 0, 0};
}

BufferLayout gathering_layout(std::size_t row_count, int ranks, std::size_t element_bytes) {
  const std::size_t block = aligned_rank_block(row_count, ranks, element_bytes);
  return {block, block, block * static_cast<std::size_t>(ranks), block, 0};
}

BufferLayout scattering_layout(std::size_t row_count, int ranks, std::size_t element_bytes) {
  const std::size_t block = aligned_rank_block(row_count, ranks, element_bytes);
  return {block, block * static_cast<std::size_t>(ranks), block, 0, block};
}

const Collective* find_collective(std::string_view name) {
  for (const Collective* collective : all_collectives()) {
    if (collective->name == name) return collective;
  }
  return nullptr;
}

}  // namespace collbench
