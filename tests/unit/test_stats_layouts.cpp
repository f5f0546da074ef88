#include <gtest/gtest.h>

#include <cmath>

#include "workloads/collectives/collective_workload.h"
#include "core/stats.h"
#include "workloads/collectives/collective.h"

namespace collbench {
namespace {

TEST(Stats, KnownSample) {
  const TimeStats stats = summarize_samples({5, 1, 4, 2, 3});
  EXPECT_DOUBLE_EQ(stats.min, 1);
  EXPECT_DOUBLE_EQ(stats.max, 5);
  EXPECT_DOUBLE_EQ(stats.p10, 1.4);  // 0.10 * 4 = 0.4 -> 1 + 0.4 * (2 - 1)
  EXPECT_DOUBLE_EQ(stats.mean, 3);
  EXPECT_DOUBLE_EQ(stats.p50, 3);
  EXPECT_DOUBLE_EQ(stats.p95, 4.8);  // 0.95 * 4 = 3.8 -> 4 + 0.8 * (5 - 4)
  EXPECT_DOUBLE_EQ(stats.p99, 4.96);
  EXPECT_DOUBLE_EQ(stats.stdev, std::sqrt(2.5));
}

TEST(Stats, SingleSampleHasZeroDeviation) {
  const TimeStats stats = summarize_samples({7});
  EXPECT_EQ(stats.stdev, 0);
  EXPECT_EQ(stats.p99, 7);
}

TEST(Stats, NoSamplesIsAnError) { EXPECT_THROW(summarize_samples({}), std::invalid_argument); }

const Collective& named(const char* name) {
  const Collective* collective = find_collective(name);
  EXPECT_NE(collective, nullptr) << name;
  return *collective;
}

TEST(BusBandwidthFactor, MatchesNcclTestsForEveryCollective) {
  for (int n : {1, 2, 3, 4, 8}) {
    const double share = static_cast<double>(n - 1) / n;
    EXPECT_DOUBLE_EQ(named("all_reduce").bus_factor.at(n), 2 * share);
    EXPECT_DOUBLE_EQ(named("all_gather").bus_factor.at(n), share);
    EXPECT_DOUBLE_EQ(named("reduce_scatter").bus_factor.at(n), share);
    EXPECT_DOUBLE_EQ(named("alltoall").bus_factor.at(n), share);
    EXPECT_DOUBLE_EQ(named("gather").bus_factor.at(n), share);
    EXPECT_DOUBLE_EQ(named("scatter").bus_factor.at(n), share);
    EXPECT_DOUBLE_EQ(named("broadcast").bus_factor.at(n), 1);
    EXPECT_DOUBLE_EQ(named("reduce").bus_factor.at(n), 1);
    EXPECT_DOUBLE_EQ(named("sendrecv").bus_factor.at(n), 1);
  }
}

TEST(Layout, PartitionedCollectivesSplitTheRowIntoRankBlocks) {
  // float64 (8 B): blocks are whole pairs of elements, so each rank's block is 16-byte aligned.
  const BufferLayout gathered = named("all_gather").layout(1000, 3, 8);
  EXPECT_EQ(gathered.call_count, 332u);  // 333 rounded down to even, as nccl-tests
  EXPECT_EQ(gathered.send_count, 332u);
  EXPECT_EQ(gathered.recv_count, 996u);
  EXPECT_EQ(gathered.in_place_send_stride, 332u);
  const BufferLayout scattered = named("reduce_scatter").layout(1000, 4, 8);
  EXPECT_EQ(scattered.send_count, 1000u);
  EXPECT_EQ(scattered.recv_count, 250u);
  EXPECT_EQ(scattered.in_place_recv_stride, 250u);
  const BufferLayout all = named("alltoall").layout(10, 4, 8);
  EXPECT_EQ(all.call_count, 2u);
  EXPECT_EQ(all.send_count, 8u);
  EXPECT_EQ(named("all_reduce").layout(10, 4, 8).call_count, 10u);
}

TEST(Layout, RankBlocksAreWhole16ByteUnitsAsInNcclTests) {
  // nccl-tests: (count / nranks) & ~(16 / eltsize - 1). At 3, 6, 12 or 24 ranks an unrounded block
  // would leave rank 1's block at a misaligned address.
  EXPECT_EQ(aligned_rank_block(1000, 3, 4), 332u);   // 333 -> multiple of 4 floats
  EXPECT_EQ(aligned_rank_block(1000, 6, 1), 160u);   // 166 -> multiple of 16 bytes
  EXPECT_EQ(aligned_rank_block(1000, 24, 2), 40u);   // 41 -> multiple of 8 halves
  EXPECT_EQ(aligned_rank_block(15, 1, 1), 0u);       // too small for one 16-byte unit
  for (int ranks : {3, 6, 12, 24}) {
    for (std::size_t element : {1u, 2u, 4u, 8u}) {
      const std::size_t block = aligned_rank_block(123457, ranks, element);
      EXPECT_EQ(block * element % 16, 0u) << ranks << " ranks, " << element << " B";
      EXPECT_LE(block * ranks, 123457u);
    }
  }
}

TEST(RowSize, NeverAnEmptyCall) {
  // 8 B of float64 over 3 ranks would be zero elements per rank: raised to the smallest row with
  // a whole 16-byte block (two float64) per rank.
  const RowSize gathered = row_size_for(named("all_gather"), 8, DType::kFloat64, 3);
  EXPECT_EQ(gathered.layout.call_count, 2u);
  EXPECT_EQ(gathered.row_count, 6u);
  const RowSize reduced = row_size_for(named("all_reduce"), 1, DType::kFloat32, 3);
  EXPECT_EQ(reduced.row_count, 1u);
  const RowSize exact = row_size_for(named("all_reduce"), 1 << 20, DType::kFloat32, 3);
  EXPECT_EQ(exact.row_count, (1u << 20) / 4);
  // nccl-tests rounds partitioned rows down to whole blocks per rank.
  EXPECT_EQ(row_size_for(named("alltoall"), 1 << 20, DType::kFloat32, 3).row_count, 3u * (((1u << 18) / 3) & ~3u));
}

TEST(Expected, OutputSourcesFollowEachCollective) {
  const OutputContext rank1{1, 4, 2, 5, false};
  auto source = named("alltoall").expected_output(rank1, 12);  // block 2, element 2
  EXPECT_EQ(source.kind, Expected::Kind::kCopyOf);
  EXPECT_EQ(source.source_rank, 2);
  EXPECT_EQ(source.source_index, 1u * 5 + 2);
  source = named("scatter").expected_output(rank1, 3);
  EXPECT_EQ(source.source_rank, 2);
  EXPECT_EQ(source.source_index, 8u);
  source = named("sendrecv").expected_output({0, 4, 0, 5, false}, 3);
  EXPECT_EQ(source.source_rank, 3);
  EXPECT_EQ(named("reduce").expected_output(rank1, 0).kind, Expected::Kind::kUnchecked);  // not the root
  EXPECT_EQ(named("reduce_scatter").expected_output(rank1, 3).source_index, 8u);
  EXPECT_EQ(named("gather").expected_output({2, 4, 2, 5, false}, 7).source_rank, 1);
}

}  // namespace
}  // namespace collbench
