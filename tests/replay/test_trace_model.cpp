// The common sequence's checks (src/workloads/replay/report/trace.h): what a replay refuses before its
// first call, on traces built here by hand.
#include <gtest/gtest.h>

#include "core/error.h"
#include "trace_calls.h"
#include "workloads/replay/report/trace.h"

namespace collbench::replay {
namespace {

using trace_tests::call;

// Two ranks, the world group 0 = {0, 1}, and the same two all-reduces on each.
Trace two_ranks() {
  Trace trace;
  trace.format = "test";
  trace.world_size = 2;
  trace.groups = {{{0, 1}, "world"}};
  for (int rank = 0; rank < 2; ++rank)
    trace.sequences[rank] = {call(TraceCollective::kAllReduce, 1024, 0), call(TraceCollective::kAllReduce, 8, 0)};
  return trace;
}

std::string usage_error_of(const Trace& trace, int launched) {
  try {
    check_trace(trace, launched, "job.json");
  } catch (const UsageError& error) {
    return error.what();
  }
  return "";
}

TEST(ReplayTrace, AgreeingSequencesPassEveryCheck) {
  const Trace trace = two_ranks();
  EXPECT_EQ(sequences_disagree(trace), std::nullopt);
  EXPECT_EQ(usage_error_of(trace, 2), "");
  EXPECT_EQ(usage_error_of(trace, 4), "");  // a trace for fewer ranks than launched runs on its own ranks
}

TEST(ReplayTrace, RankThatBroadcastsWhereTheOtherAllReducesIsNamedBeforeAnyCall) {
  Trace trace = two_ranks();
  trace.sequences[1][0] = call(TraceCollective::kBroadcast, 1024, 0, 0);
  const auto reason = sequences_disagree(trace);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("all_reduce of 1024 float32"), std::string::npos) << *reason;
  EXPECT_NE(reason->find("broadcast of 1024 float32 root 0"), std::string::npos) << *reason;
  EXPECT_NE(usage_error_of(trace, 2).find("job.json: rank 0 issues all_reduce"), std::string::npos);
}

TEST(ReplayTrace, DifferentCountOrDtypeOrOpDisagrees) {
  Trace counts = two_ranks();
  counts.sequences[1][1].count = 9;
  EXPECT_TRUE(sequences_disagree(counts).has_value());
  Trace dtypes = two_ranks();
  dtypes.sequences[0][0].dtype = DType::kBfloat16;
  EXPECT_TRUE(sequences_disagree(dtypes).has_value());
  Trace ops = two_ranks();
  ops.sequences[0][1].op = ReduceOp::kMax;
  EXPECT_TRUE(sequences_disagree(ops).has_value());
}

TEST(ReplayTrace, GroupsCalledInCrossedOrderWaitOnEachOther) {
  // World {0,1,2}; groups A = {0,1} and B = {1,2}... rank 1 calls B first, rank 0 and 2 are fine alone.
  Trace trace;
  trace.world_size = 3;
  trace.groups = {{{0, 1}, "A"}, {{1, 2}, "B"}, {{0, 2}, "C"}};
  trace.sequences[0] = {call(TraceCollective::kAllReduce, 4, 0), call(TraceCollective::kAllReduce, 4, 2)};
  trace.sequences[1] = {call(TraceCollective::kAllReduce, 4, 1), call(TraceCollective::kAllReduce, 4, 0)};
  trace.sequences[2] = {call(TraceCollective::kAllReduce, 4, 2), call(TraceCollective::kAllReduce, 4, 1)};
  const auto reason = sequences_disagree(trace);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("wait on each other"), std::string::npos) << *reason;
  // The same calls in an order that runs: A, then B, then C.
  trace.sequences[0] = {call(TraceCollective::kAllReduce, 4, 0), call(TraceCollective::kAllReduce, 4, 2)};
  trace.sequences[1] = {call(TraceCollective::kAllReduce, 4, 0), call(TraceCollective::kAllReduce, 4, 1)};
  trace.sequences[2] = {call(TraceCollective::kAllReduce, 4, 1), call(TraceCollective::kAllReduce, 4, 2)};
  EXPECT_EQ(sequences_disagree(trace), std::nullopt);
}

TEST(ReplayTrace, SendsMeetTheirReceivesInOrder) {
  Trace trace;
  trace.world_size = 2;
  trace.groups = {{{0, 1}, "world"}};
  trace.sequences[0] = {call(TraceCollective::kSend, 64, 0, 1), call(TraceCollective::kRecv, 64, 0, 1)};
  trace.sequences[1] = {call(TraceCollective::kRecv, 64, 0, 0), call(TraceCollective::kSend, 64, 0, 0)};
  EXPECT_EQ(sequences_disagree(trace), std::nullopt);
  trace.sequences[1][0].count = 32;
  const auto sizes = sequences_disagree(trace);
  ASSERT_TRUE(sizes.has_value());
  EXPECT_NE(sizes->find("send of 64"), std::string::npos) << *sizes;
  trace.sequences[1] = {call(TraceCollective::kRecv, 64, 0, 0)};  // rank 1 never returns the gradient
  const auto stuck = sequences_disagree(trace);
  ASSERT_TRUE(stuck.has_value());
  EXPECT_NE(stuck->find("rank 0 is stuck at call 2, recv of 64"), std::string::npos) << *stuck;
  trace.sequences[0] = {call(TraceCollective::kSend, 64, 0, 1), call(TraceCollective::kSend, 64, 0, 1)};
  const auto unreceived = sequences_disagree(trace);
  ASSERT_TRUE(unreceived.has_value());
  EXPECT_NE(unreceived->find("never receives"), std::string::npos) << *unreceived;
}

TEST(ReplayTrace, MoreRanksThanLaunchedAndGroupsOutsideTheWorldAndMissingRanksExitTwo) {
  EXPECT_EQ(usage_error_of(two_ranks(), 1), "job.json: the trace is for 2 ranks, but 1 were launched");
  Trace outside = two_ranks();
  outside.groups.push_back({{0, 5}, "process group 3"});
  EXPECT_EQ(usage_error_of(outside, 2), "job.json: group process group 3 names rank 5, outside the trace's 2 ranks");
  Trace missing = two_ranks();
  missing.sequences.erase(1);
  EXPECT_EQ(usage_error_of(missing, 2), "job.json: no calls recorded for rank(s) 1 of the trace's 2 (give every rank's file)");
}

TEST(ReplayTrace, NamesFromATraceAreEscapedInMessages) {
  Trace trace = two_ranks();
  trace.groups[0].name = "evil\x1b]0;title\x07";
  trace.groups.push_back({{0, 9}, "\x1b[2J"});
  const std::string message = usage_error_of(trace, 2);
  EXPECT_EQ(message.find('\x1b'), std::string::npos) << message;
  EXPECT_NE(message.find("?[2J"), std::string::npos) << message;
}

TEST(ReplayTrace, GapIsIdleTimeBetweenCallsAndBytesCountGroups) {
  Trace trace = two_ranks();
  auto& calls = trace.sequences[0];
  calls[0].start_us = 100.0;
  calls[0].job_duration_us = 30.0;
  calls[1].start_us = 150.0;
  EXPECT_EQ(gap_before_us(calls, 0), 0.0);
  EXPECT_EQ(gap_before_us(calls, 1), 20.0);
  calls[0].job_duration_us.reset();  // without durations: start to start
  EXPECT_EQ(gap_before_us(calls, 1), 50.0);
  calls[1].start_us = 90.0;  // overlapping calls have no idle time
  EXPECT_EQ(gap_before_us(calls, 1), 0.0);
  EXPECT_EQ(gap_before_us(trace.sequences[1], 1), std::nullopt);  // no timestamps
  EXPECT_EQ(payload_bytes(call(TraceCollective::kAllGather, 10, 0), trace), 80u);  // 2 ranks x 10 x 4 B
  EXPECT_EQ(replayed_bytes(trace), 2u * (1024 + 8) * 4);
  count_skipped(trace, "allreduce_coalesced", 100);
  count_skipped(trace, "allreduce_coalesced", 50);
  ASSERT_EQ(trace.skipped.size(), 1u);
  EXPECT_EQ(trace.skipped[0].calls, 2u);
  EXPECT_EQ(skipped_bytes(trace), 150u);
}

TEST(ReplayTrace, ManyCallsAreCheckedInOnePass) {
  Trace trace;
  trace.world_size = 2;
  trace.groups = {{{0, 1}, "world"}};
  for (int rank = 0; rank < 2; ++rank) trace.sequences[rank].assign(100000, call(TraceCollective::kAllReduce, 4, 0));
  EXPECT_EQ(sequences_disagree(trace), std::nullopt);
}

}  // namespace
}  // namespace collbench::replay
