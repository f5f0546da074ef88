// What replay_perf makes of a trace (src/workloads/replay/replay_plan.h, issue 61): its size buckets
// and rows, checked on the real DDP trace against DDP's own buckets; the communicators its groups
// need; the exchanges that would wait forever; what a backend cannot run and its share.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "workloads/replay/replay_options.h"
#include "workloads/replay/replay_plan.h"
#include "workloads/replay/report/trace_readers.h"
#include "trace_calls.h"

namespace collbench::replay {
namespace {

const std::string kData = std::string(COLLBENCH_REPLAY_TEST_DATA) + "/";

using trace_tests::call;

// Two ranks: group 0 is both, group 1 the same ranks under another name, group 2 rank 0 alone.
Trace two_ranks(std::vector<TraceCall> rank0, std::vector<TraceCall> rank1) {
  Trace trace;
  trace.format = "test";
  trace.world_size = 2;
  trace.groups = {{{0, 1}, "world"}, {{0, 1}, "another"}, {{0}, "alone"}};
  trace.sequences[0] = std::move(rank0);
  trace.sequences[1] = std::move(rank1);
  return trace;
}

TEST(ReplayPlan, SizeBucketsArePowersOfTwoFromBelow) {
  EXPECT_EQ(size_bucket(0), 0u);
  EXPECT_EQ(size_bucket(1), 1u);
  EXPECT_EQ(size_bucket(3), 2u);
  EXPECT_EQ(size_bucket(4096), 4096u);
  EXPECT_EQ(size_bucket(8191), 4096u);
  EXPECT_EQ(size_bucket(~0ull), 1ull << 63);
}

// The real DDP job's all-reduces fall in the buckets of the sizes DDP itself reported.
TEST(ReplayPlan, DdpTraceRowsAreDdpsOwnBuckets) {
  const Trace trace = read_trace({kData + "torch/ddp.rank0.kineto.json", kData + "torch/ddp.rank1.kineto.json"});
  std::ifstream file(kData + "torch/ddp.expected.json");
  const nlohmann::json expected = nlohmann::json::parse(file);
  std::map<std::uint64_t, std::uint64_t> want;
  for (const auto& size : expected["rebuilt_bucket_sizes"]) want[size_bucket(size.get<std::uint64_t>())] += expected["steps"].get<std::uint64_t>();
  std::map<std::uint64_t, std::uint64_t> got;
  for (const BucketTally& tally : tally_buckets(trace)) {
    if (tally.key.collective != TraceCollective::kAllReduce) continue;
    EXPECT_EQ(tally.key.group_size, 2);
    EXPECT_EQ(tally.key.dtype, DType::kFloat32);
    got[tally.key.bucket_bytes] += tally.calls;
  }
  EXPECT_EQ(got, want);
}

TEST(ReplayPlan, CollectivesCountOncePerGroupAndSendsOncePerRank) {
  const Trace trace = two_ranks({call(TraceCollective::kAllReduce, 1000, 0), call(TraceCollective::kSend, 256, 0, 1)},
                                {call(TraceCollective::kAllReduce, 1000, 0), call(TraceCollective::kRecv, 256, 0, 0)});
  const std::vector<BucketTally> tallies = tally_buckets(trace);
  ASSERT_EQ(tallies.size(), 3u);
  for (const BucketTally& tally : tallies) {
    EXPECT_EQ(tally.calls, 1u);
    EXPECT_EQ(tally.key.group_size, 2);
    EXPECT_EQ(tally.key.bucket_bytes, tally.key.collective == TraceCollective::kAllReduce ? 2048u : 1024u);
    EXPECT_EQ(tally.bytes, tally.key.collective == TraceCollective::kAllReduce ? 4000u : 1024u);
  }
  EXPECT_EQ(bucket_index(tallies, bucket_of(trace.sequences.at(1)[1], trace)), 2u);  // ordered: all_reduce, send, recv
}

TEST(ReplayPlan, GroupsOfTheSameRanksShareOneCommunicator) {
  const Trace trace = two_ranks({call(TraceCollective::kAllReduce, 8, 1), call(TraceCollective::kAllReduce, 8, 0),
                                 call(TraceCollective::kAllReduce, 8, 2)},
                                {call(TraceCollective::kAllReduce, 8, 1), call(TraceCollective::kAllReduce, 8, 0)});
  const Communicators made = communicators_of(trace);
  ASSERT_EQ(made.ranks.size(), 2u);
  EXPECT_EQ(made.ranks[0], (std::vector<int>{0, 1}));
  EXPECT_EQ(made.ranks[1], (std::vector<int>{0}));
  EXPECT_EQ(made.of_group, (std::vector<std::optional<std::size_t>>{0, 0, 1}));
}

TEST(ReplayPlan, ExchangesThatWaitOnEachOtherAreFound) {
  using C = TraceCollective;
  // Each sends then receives in one exchange: posted together, they meet.
  EXPECT_FALSE(exchanges_wait_forever(two_ranks({call(C::kSend, 4, 0, 1), call(C::kRecv, 4, 0, 1)},
                                                {call(C::kSend, 4, 0, 0), call(C::kRecv, 4, 0, 0)})));
  // A pipeline's order: send then receive on one side, receive then send on the other.
  EXPECT_FALSE(exchanges_wait_forever(two_ranks({call(C::kSend, 4, 0, 1), call(C::kAllReduce, 4, 0), call(C::kRecv, 4, 0, 1)},
                                                {call(C::kRecv, 4, 0, 0), call(C::kAllReduce, 4, 0), call(C::kSend, 4, 0, 0)})));
  // Both send first, an all-reduce between their sends and receives: eager sends would go on, a
  // replay that waits for each exchange would not.
  const auto stuck = exchanges_wait_forever(two_ranks({call(C::kSend, 4, 0, 1), call(C::kAllReduce, 4, 0), call(C::kRecv, 4, 0, 1)},
                                                      {call(C::kSend, 4, 0, 0), call(C::kAllReduce, 4, 0), call(C::kRecv, 4, 0, 0)}));
  ASSERT_TRUE(stuck);
  EXPECT_NE(stuck->find("rank 0 is stuck at call 1, send of 4 float32"), std::string::npos) << *stuck;
}

// The real jobs' traces run as replay_perf issues them.
TEST(ReplayPlan, RealTracesRunAsReplayed) {
  for (const std::string job : {"ddp", "tp", "pipeline"}) {
    const Trace trace = read_trace({kData + "torch/" + job + ".rank0.kineto.json", kData + "torch/" + job + ".rank1.kineto.json"});
    EXPECT_FALSE(exchanges_wait_forever(trace)) << job << ": " << exchanges_wait_forever(trace).value_or("");
  }
}

TEST(ReplayPlan, AnExchangesReceivesLieEndToEnd) {
  using C = TraceCollective;
  const Trace trace = two_ranks({call(C::kRecv, 100, 0, 1), call(C::kRecv, 50, 0, 1), call(C::kAllReduce, 120, 0)}, {});
  EXPECT_EQ(exchange_end(trace.sequences.at(0), 0), 2u);
  EXPECT_EQ(largest_receive(trace.sequences.at(0), trace), 600u);  // (100 + 50) float32
}

// Where the trace recorded idle time between two sends or receives, they are two exchanges.
TEST(ReplayPlan, IdleTimeBetweenSendsSplitsTheExchange) {
  using C = TraceCollective;
  std::vector<TraceCall> calls = {call(C::kSend, 4, 0, 1), call(C::kRecv, 4, 0, 1), call(C::kSend, 4, 0, 1)};
  calls[0].start_us = 0;
  calls[0].job_duration_us = 5;
  calls[1].start_us = 10;  // 5 us after the send's end: together
  calls[1].job_duration_us = 5;
  calls[2].start_us = 100;  // 85 us of the job's own work before it
  EXPECT_EQ(exchange_end(calls, 0), 2u);
  EXPECT_EQ(exchange_end(calls, 2), 3u);
}

TEST(ReplayPlan, UnsupportedCallsAreSkippedWithTheirShare) {
  using C = TraceCollective;
  Trace trace = two_ranks({call(C::kAllToAll, 10, 0), call(C::kAllReduce, 10, 0)},
                          {call(C::kAllToAll, 10, 0), call(C::kAllReduce, 10, 0)});
  count_skipped(trace, "AllGatherV (not replayed)", 64);
  const auto skipped = remove_unsupported(trace, [](const TraceCall& call) {
    return call.collective == C::kAllToAll ? std::string("no alltoall here") : std::string();
  });
  ASSERT_EQ(skipped.size(), 2u);
  EXPECT_EQ(skipped[0].what, "AllGatherV (not replayed)");
  EXPECT_EQ(skipped[0].bytes, 64u);
  EXPECT_EQ(skipped[1].what, "alltoall of float32");
  EXPECT_EQ(skipped[1].reason, "no alltoall here");
  EXPECT_EQ(skipped[1].calls, 2u);
  EXPECT_EQ(skipped[1].bytes, 2u * 10 * 4 * 2);  // each rank's 10 per peer x 2 peers, on 2 ranks
  EXPECT_EQ(trace.sequences.at(0).size(), 1u);
  EXPECT_EQ(trace.sequences.at(1).size(), 1u);
}

TEST(ReplayPlan, FingerprintsTellTracesApart) {
  const Trace one = two_ranks({call(TraceCollective::kAllReduce, 8, 0)}, {call(TraceCollective::kAllReduce, 8, 0)});
  const Trace other = two_ranks({call(TraceCollective::kAllReduce, 9, 0)}, {call(TraceCollective::kAllReduce, 9, 0)});
  EXPECT_EQ(trace_fingerprint(one), trace_fingerprint(one));
  EXPECT_NE(trace_fingerprint(one), trace_fingerprint(other));
}

TEST(ReplayOptions, TraceIsRequiredAndGapsAndFormatParsed) {
  EXPECT_THROW(parse_options({}), UsageError);
  const ReplayOptions options = parse_options({"--trace", "a.json", "--trace", "b.json", "--gaps", "trace", "--trace-format", "kineto"});
  EXPECT_EQ(options.trace_paths, (std::vector<std::string>{"a.json", "b.json"}));
  EXPECT_EQ(options.gaps, Gaps::kTrace);
  EXPECT_EQ(options.format, TraceFormat::kKineto);
  EXPECT_EQ(options.iterations, 5);
  EXPECT_THROW(parse_options({"--trace", "a.json", "--trace-format", "pcap"}), UsageError);
}

}  // namespace
}  // namespace collbench::replay
