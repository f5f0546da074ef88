#include "workloads/collectives/traffic_run.h"

#include <algorithm>
#include <memory>

#include "core/error.h"
#include "core/input_file.h"

namespace collbench {

void RunTraffic::check_for_world(World& world) {
  if (options_.traffic.pattern == TrafficPattern::kHotspot && options_.traffic.hot_ranks > world.size()) {
    throw UsageError("--pattern hotspot:" + std::to_string(options_.traffic.hot_ranks) + " asks for more hot ranks than the world's " +
                     std::to_string(world.size()) + " (use 1.." + std::to_string(world.size()) + ")");
  }
  if (!options_.traffic.from_matrix()) return;
  const std::string& path = options_.traffic.matrix_path;
  // A matrix of a few thousand ranks is tens of MB of text, a row a few hundred KB.
  const std::string text = world.decided_on_rank_zero([&path] { return read_input_file(path, {"--matrix file", 256u << 20, 16u << 20}); });
  byte_matrix_ = parse_byte_matrix(text, path, world.size());
  // A row that moves nothing would time an empty call and print a bandwidth of 0.
  for (DType dtype : options_.dtypes) {
    if (traffic_from_bytes(*byte_matrix_, dtype_info(dtype).size_bytes).busiest_elements() == 0) {
      throw UsageError("the --matrix file '" + path + "' moves no whole " + std::string(to_string(dtype)) +
                       " element between any two ranks (every pair is below " +
                       std::to_string(dtype_info(dtype).size_bytes) + " bytes)");
    }
  }
}

TrafficMatrix RunTraffic::matrix_for(DType dtype, std::uint64_t requested_bytes, int ranks) const {
  const std::size_t element = dtype_info(dtype).size_bytes;
  if (byte_matrix_) return traffic_from_bytes(*byte_matrix_, element);
  return generate_traffic(options_.traffic, requested_bytes, ranks, element, options_.seed);
}

std::vector<CollectiveCase> RunTraffic::cases(const Collective& collective, const std::vector<Placement>& placements, int ranks,
                                              int rank) const {
  std::vector<CollectiveCase> cases;
  for (DType dtype : options_.dtypes) {
    std::shared_ptr<const TrafficMatrix> previous;
    for (std::uint64_t requested : sizes()) {
      auto traffic = std::make_shared<const TrafficMatrix>(matrix_for(dtype, requested, ranks));
      if (previous && *previous == *traffic) continue;  // rounding made it the same row as the last
      previous = traffic;
      const RowSize size{traffic->busiest_elements(), collective.traffic_layout(*traffic, rank)};
      const std::uint64_t asked = byte_matrix_ ? size.row_count * dtype_info(dtype).size_bytes : requested;
      for (Placement placement : placements) {
        cases.push_back({dtype, ReduceOp::kSum, -1, asked, size, placement, placement == placements.back(), traffic});
      }
    }
  }
  return cases;
}

BufferBytes RunTraffic::largest_buffers(int ranks) const {
  BufferBytes largest;
  for (DType dtype : options_.dtypes) {
    for (std::uint64_t requested : sizes()) {
      const std::uint64_t bytes = matrix_for(dtype, requested, ranks).busiest_elements() * dtype_info(dtype).size_bytes;
      largest.send = std::max(largest.send, bytes);
      largest.shared = std::max(largest.shared, bytes);
    }
  }
  return largest;
}

nlohmann::json RunTraffic::row(const CollectiveCase& one_case) const {
  const TrafficMatrix& traffic = *one_case.traffic;
  const std::uint64_t element = dtype_info(one_case.dtype).size_bytes;
  std::uint64_t max_send = 0, min_send = UINT64_MAX, max_receive = 0, min_receive = UINT64_MAX, total = 0, largest_pair = 0;
  for (int rank = 0; rank < traffic.ranks(); ++rank) {
    const std::uint64_t sent = traffic.sent_by(rank) * element, received = traffic.received_by(rank) * element;
    max_send = std::max(max_send, sent);
    min_send = std::min(min_send, sent);
    max_receive = std::max(max_receive, received);
    min_receive = std::min(min_receive, received);
    total += sent;
  }
  for (std::size_t elements : traffic.all_elements()) largest_pair = std::max<std::uint64_t>(largest_pair, elements * element);
  nlohmann::json row = {{"pattern", options_.traffic.text()},
                        {"seed", options_.seed},
                        {"bytes_per_rank", byte_matrix_ ? 0 : one_case.requested_bytes},
                        {"max_send_bytes", max_send},
                        {"min_send_bytes", min_send},
                        {"max_receive_bytes", max_receive},
                        {"min_receive_bytes", min_receive},
                        {"total_bytes", total},
                        {"largest_pair_bytes", largest_pair}};
  if (!options_.traffic.matrix_path.empty()) row["matrix_file"] = options_.traffic.matrix_path;
  return row;
}

std::string RunTraffic::description() const {
  std::string text = "\ntraffic " + options_.traffic.text();
  if (options_.traffic.from_matrix()) text += " from " + options_.traffic.matrix_path + " (the sizes above are not used)";
  else text += " (seed " + std::to_string(options_.seed) + "; each size is every rank's total sent)";
  return text + "\nsize = the busiest rank's bytes sent or received; busbw = algbw * (n-1)/n, as nccl-tests' alltoallv";
}

PeerBlocks peer_blocks_of(const TrafficMatrix& traffic, int rank) {
  PeerBlocks blocks;
  for (int peer = 0; peer < traffic.ranks(); ++peer) {
    blocks.send_counts.push_back(traffic.elements(rank, peer));
    blocks.send_offsets.push_back(traffic.send_offset(rank, peer));
    blocks.receive_counts.push_back(traffic.elements(peer, rank));
    blocks.receive_offsets.push_back(traffic.receive_offset(rank, peer));
  }
  return blocks;
}

}  // namespace collbench
