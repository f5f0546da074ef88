// replay_perf --scale and model predict --trace's scaling (src/workloads/replay/report/trace_scale.h):
// a hand-made 2-rank job (a TP pair inside the world, the world's DDP all-reduce and FSDP-style
// all-gather and reduce-scatter, a pipeline's send and receive) at other numbers of ranks, each
// call's group, root, peer and count in closed form.
#include <gtest/gtest.h>

#include "core/error.h"
#include "trace_calls.h"
#include "workloads/replay/report/trace.h"
#include "workloads/replay/report/trace_scale.h"
#include "workloads/replay/replay_plan.h"

namespace collbench::replay {
namespace {

using trace_tests::call;

// Two ranks, every call on the world {0, 1}: DDP's all-reduce, FSDP's all-gather and reduce-scatter,
// a broadcast from rank 1.
Trace world_calls() {
  Trace trace;
  trace.format = "test";
  trace.world_size = 2;
  trace.groups = {{{0, 1}, "world"}};
  for (int rank = 0; rank < 2; ++rank) {
    trace.sequences[rank] = {call(TraceCollective::kAllReduce, 1000, 0), call(TraceCollective::kAllGather, 300, 0),
                             call(TraceCollective::kReduceScatter, 300, 0), call(TraceCollective::kBroadcast, 10, 0, 1)};
  }
  return trace;
}

// Four ranks: world {0..3}, TP pairs {0,1} and {2,3}, and a pipeline send 0 -> 2, 1 -> 3.
Trace four_ranks() {
  Trace trace;
  trace.format = "test";
  trace.world_size = 4;
  trace.groups = {{{0, 1, 2, 3}, "world"}, {{0, 1}, "tp0"}, {{2, 3}, "tp1"}};
  for (int rank = 0; rank < 4; ++rank) {
    const std::size_t tp = rank < 2 ? 1 : 2;
    std::vector<TraceCall>& calls = trace.sequences[rank];
    calls = {call(TraceCollective::kAllReduce, 64, tp), call(TraceCollective::kAllReduce, 1000, 0)};
    if (rank < 2) calls.push_back(call(TraceCollective::kSend, 16, 0, rank + 2));
    else calls.push_back(call(TraceCollective::kRecv, 16, 0, rank - 2));
  }
  return trace;
}

std::string scale_error(const Trace& trace, TraceScale scale) {
  try {
    scale_trace(trace, scale, "job.json");
  } catch (const UsageError& error) {
    return error.what();
  }
  return "";
}

TEST(ReplayScale, TheWorldGrowsAndPerRankCountsAreKept) {
  const Trace scaled = scale_trace(world_calls(), {8, ScaleCounts::kPerRank}, "job.json");
  check_trace(scaled, 8, "job.json");
  EXPECT_EQ(scaled.world_size, 8);
  ASSERT_EQ(scaled.groups.size(), 1u);
  EXPECT_EQ(scaled.groups[0].ranks, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  ASSERT_EQ(scaled.sequences.size(), 8u);
  for (const auto& [rank, calls] : scaled.sequences) {
    ASSERT_EQ(calls.size(), 4u);
    EXPECT_EQ(calls[0].count, 1000u);  // DDP's bucket per rank
    EXPECT_EQ(calls[1].count, 300u);   // each rank's part: the gathered buffer is 8 x 300
    EXPECT_EQ(payload_bytes(calls[1], scaled), 8u * 300 * 4);
    EXPECT_EQ(calls[3].root, 1);
  }
  EXPECT_EQ(scale_key(world_calls(), {8, ScaleCounts::kPerRank}), "2->8 per-rank");
}

TEST(ReplayScale, TotalCountsShrinkEachRanksShardRoundedUp) {
  const Trace scaled = scale_trace(world_calls(), {8, ScaleCounts::kTotal}, "job.json");
  const std::vector<TraceCall>& calls = scaled.sequences.at(5);
  EXPECT_EQ(calls[0].count, 1000u);  // all_reduce keeps its count either way
  EXPECT_EQ(calls[1].count, 75u);    // 2 x 300 / 8
  EXPECT_EQ(calls[2].count, 75u);
  const Trace uneven = scale_trace(world_calls(), {7, ScaleCounts::kTotal}, "job.json");
  EXPECT_EQ(uneven.sequences.at(6)[1].count, 86u);  // ceil(600 / 7), FSDP's padding
  EXPECT_EQ(scale_key(world_calls(), {7, ScaleCounts::kTotal}), "2->7 total");
}

TEST(ReplayScale, AWorldOnlyTraceShrinksWithItsRootsWrapped) {
  Trace trace = world_calls();
  for (auto& [rank, calls] : trace.sequences) calls[3].root = 1;
  const Trace scaled = scale_trace(trace, {1, ScaleCounts::kPerRank}, "job.json");
  check_trace(scaled, 1, "job.json");
  ASSERT_EQ(scaled.sequences.size(), 1u);
  EXPECT_EQ(scaled.sequences.at(0)[3].root, 0);
}

TEST(ReplayScale, SubgroupsAndSendsAreReplicatedAtTheirSize) {
  const Trace scaled = scale_trace(four_ranks(), {8, ScaleCounts::kPerRank}, "job.json");
  check_trace(scaled, 8, "job.json");
  EXPECT_EQ(exchanges_wait_forever(scaled), std::nullopt);
  // rank 6 plays rank 2 in the second replica: its TP pair is {6, 7}, its send's peer 4.
  const std::vector<TraceCall>& calls = scaled.sequences.at(6);
  EXPECT_EQ(scaled.groups.at(calls[0].group).ranks, (std::vector<int>{6, 7}));
  EXPECT_EQ(scaled.groups.at(calls[1].group).ranks.size(), 8u);
  EXPECT_EQ(calls[2].collective, TraceCollective::kRecv);
  EXPECT_EQ(calls[2].root, 4);
  // Groups: the world once, each pair twice; one communicator per distinct set of ranks.
  EXPECT_EQ(scaled.groups.size(), 5u);
  EXPECT_EQ(communicators_of(scaled).ranks.size(), 5u);
  // The rows: the TP pairs' all_reduce 4 calls of 2 ranks, the world's 1 call of 8, 4 sends.
  for (const BucketTally& bucket : tally_buckets(scaled)) {
    if (bucket.key.collective == TraceCollective::kAllReduce) {
      EXPECT_EQ(bucket.calls, bucket.key.group_size == 2 ? 4u : 1u);
      EXPECT_TRUE(bucket.key.group_size == 2 || bucket.key.group_size == 8);
    } else {
      EXPECT_EQ(bucket.calls, 4u) << to_string(bucket.key.collective);
    }
  }
}

TEST(ReplayScale, ANonMultipleWithSubgroupsIsRefusedWithOneLine) {
  EXPECT_EQ(scale_error(four_ranks(), {6, ScaleCounts::kPerRank}),
            "job.json: --scale 6 is not a multiple of the trace's 4 ranks, and its group tp0 (ranks 0,1) is replicated "
            "once per 4 ranks (use a multiple of 4)");
  EXPECT_NE(scale_error(four_ranks(), {2, ScaleCounts::kPerRank}).find("--scale 2 is below the trace's 4 ranks"), std::string::npos);
  // The world alone scales to any number of ranks.
  EXPECT_EQ(scale_error(world_calls(), {3, ScaleCounts::kPerRank}), "");
}

TEST(ReplayScale, AsRecordedIsTheTraceItselfAndKeyedNone) {
  const Trace trace = four_ranks();
  EXPECT_FALSE(scales(trace, {0, ScaleCounts::kTotal}));
  EXPECT_FALSE(scales(trace, {4, ScaleCounts::kTotal}));
  EXPECT_EQ(scale_key(trace, {4, ScaleCounts::kTotal}), "none");
  EXPECT_EQ(trace_fingerprint(scale_trace(trace, {4, ScaleCounts::kTotal}, "job.json")), trace_fingerprint(trace));
  EXPECT_TRUE(scale_notes(trace, {4, ScaleCounts::kPerRank}).empty());
}

TEST(ReplayScale, NotesSayWhichCallsKeepTheJobsMeaning) {
  const std::vector<std::string> notes = scale_notes(world_calls(), {4, ScaleCounts::kPerRank});
  ASSERT_EQ(notes.size(), 3u);
  EXPECT_NE(notes[1].find("all_reduce, broadcast on the world keep each rank's count"), std::string::npos) << notes[1];
  EXPECT_NE(notes[2].find("all_gather, reduce_scatter on the world keep each rank's count"), std::string::npos) << notes[2];
  EXPECT_NE(notes[2].find("grows 4/2 times"), std::string::npos) << notes[2];
}

TEST(ReplayScale, ACountThatNoLongerFitsIsRefused) {
  Trace trace = world_calls();
  for (auto& [rank, calls] : trace.sequences) calls[1].count = std::uint64_t{1} << 60;
  EXPECT_NE(scale_error(trace, {64, ScaleCounts::kPerRank}).find("does not fit in 64 bits"), std::string::npos);
}

}  // namespace
}  // namespace collbench::replay
