#include "workloads/collective.h"

namespace collbench {

extern const Collective kAllReduce, kBroadcast, kReduce, kAllGather, kReduceScatter, kAlltoall, kGather, kScatter,
    kSendrecv;

BufferLayout whole_buffer_layout(std::size_t row_count, int /*ranks*/) {
  return {row_count, row_count, row_count, 0, 0};
}

BufferLayout gathering_layout(std::size_t row_count, int ranks) {
  const std::size_t block = row_count / static_cast<std::size_t>(ranks);
  return {block, block, block * static_cast<std::size_t>(ranks), block, 0};
}

BufferLayout scattering_layout(std::size_t row_count, int ranks) {
  const std::size_t block = row_count / static_cast<std::size_t>(ranks);
  return {block, block * static_cast<std::size_t>(ranks), block, 0, block};
}

double factor_one(int /*ranks*/) { return 1.0; }
double factor_all_but_one_share(int ranks) { return static_cast<double>(ranks - 1) / ranks; }

const std::vector<const Collective*>& all_collectives() {
  static const std::vector<const Collective*> collectives = {&kAllReduce, &kBroadcast, &kReduce,  &kAllGather, &kReduceScatter,
                                                             &kAlltoall,  &kGather,    &kScatter, &kSendrecv};
  return collectives;
}

const Collective* find_collective(std::string_view name) {
  for (const Collective* collective : all_collectives()) {
    if (collective->name == name) return collective;
  }
  return nullptr;
}

}  // namespace collbench
