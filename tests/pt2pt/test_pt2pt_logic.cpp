// pt2pt_perf's pure rules: OSU's counts, the pair schedules, the sampled peers and the link
// matrix's verdict, each against closed forms.
#include <gtest/gtest.h>

#include <set>

#include "core/error.h"
#include "workloads/pt2pt/fan_figures.h"
#include "workloads/pt2pt/link_matrix.h"
#include "workloads/pt2pt/pt2pt_options.h"

namespace collbench::pt2pt {
namespace {

TEST(Pt2ptCounts, OsuIterationsSwitchAbove8KiB) {
  EXPECT_EQ(osu_iteration_counts(Mode::kLatency, 8192).iterations, 10000);
  EXPECT_EQ(osu_iteration_counts(Mode::kLatency, 8192).warmup, 100);
  EXPECT_EQ(osu_iteration_counts(Mode::kLatency, 8193).iterations, 1000);
  EXPECT_EQ(osu_iteration_counts(Mode::kLatency, 8193).warmup, 10);
  for (Mode mode : {Mode::kBandwidth, Mode::kBidirectional, Mode::kMultiPair}) {
    EXPECT_EQ(osu_iteration_counts(mode, 1).iterations, 100);
    EXPECT_EQ(osu_iteration_counts(mode, 1).warmup, 10);
    EXPECT_EQ(osu_iteration_counts(mode, 1u << 20).iterations, 20);
    EXPECT_EQ(osu_iteration_counts(mode, 1u << 20).warmup, 2);
  }
}

TEST(Pt2ptCounts, GivenCountsReplaceOsusForEverySize) {
  const Pt2ptOptions options = parse_options({"-n", "7"});
  EXPECT_EQ(iteration_counts(options, 8).iterations, 7);
  EXPECT_EQ(iteration_counts(options, 1u << 20).iterations, 7);
  EXPECT_EQ(iteration_counts(options, 8).warmup, 100);  // -w not given: OSU's
  EXPECT_EQ(iteration_counts(parse_options({"-w", "0"}), 1u << 20).warmup, 0);
}

TEST(Pt2ptPairs, MultiPairsAreRankIWithIPlusHalf) {
  EXPECT_EQ(multi_pairs(2), (std::vector<LinkPair>{{0, 1}}));
  EXPECT_EQ(multi_pairs(4), (std::vector<LinkPair>{{0, 2}, {1, 3}}));
  EXPECT_EQ(multi_pairs(5), (std::vector<LinkPair>{{0, 2}, {1, 3}}));  // rank 4 idles, as in OSU
}

TEST(Pt2ptPairs, FullMatrixIsEveryOrderedPairInOrder) {
  EXPECT_EQ(matrix_pairs(3, 0, 1), (std::vector<LinkPair>{{0, 1}, {0, 2}, {1, 0}, {1, 2}, {2, 0}, {2, 1}}));
  EXPECT_EQ(matrix_pairs(3, 2, 99), matrix_pairs(3, 0, 1));  // K = N-1 samples every peer
  EXPECT_EQ(matrix_pairs(16, 0, 5).size(), 16u * 15u);
}

TEST(Pt2ptPairs, SampledPeersAreDeterministicDistinctAndNeverSelf) {
  const auto first = matrix_pairs(16, 3, 42);
  EXPECT_EQ(first, matrix_pairs(16, 3, 42));  // the same draw every time, on every rank
  ASSERT_EQ(first.size(), 16u * 3u);
  for (int src = 0; src < 16; ++src) {
    std::set<int> peers;
    for (const LinkPair& pair : first) {
      if (pair.src != src) continue;
      EXPECT_NE(pair.dst, src);
      EXPECT_GE(pair.dst, 0);
      EXPECT_LT(pair.dst, 16);
      peers.insert(pair.dst);
    }
    EXPECT_EQ(peers.size(), 3u);
  }
  EXPECT_NE(first, matrix_pairs(16, 3, 43));  // another seed, another draw
}

TEST(Pt2ptPairs, SampledPeersCoverEveryPeerOverSeeds) {
  std::set<int> seen;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    for (const LinkPair& pair : matrix_pairs(8, 1, seed)) {
      if (pair.src == 0) seen.insert(pair.dst);
    }
  }
  EXPECT_EQ(seen, (std::set<int>{1, 2, 3, 4, 5, 6, 7}));
}

std::vector<MeasuredLink> links_of(const std::vector<std::tuple<int, int, double>>& times) {
  std::vector<MeasuredLink> links;
  for (const auto& [src, dst, time] : times) links.push_back({src, dst, time, 1.0 / time});
  return links;
}

TEST(Pt2ptMatrix, FlagsTheOneSlowLinkNamingBothHosts) {
  const std::vector<std::string> hosts{"a", "a", "b", "b"};
  // Inter-host links: 0<->2 slow (10 us), the rest 2 us; intra-host 0<->1 and 2<->3 at 0.5 us.
  const auto links = links_of({{0, 1, 0.5}, {1, 0, 0.5}, {2, 3, 0.5}, {3, 2, 0.5}, {0, 2, 10}, {2, 0, 10}, {0, 3, 2}, {3, 0, 2},
                               {1, 2, 2}, {2, 1, 2}, {1, 3, 2}, {3, 1, 2}});
  const SizeVerdict verdict = judge_links(links, hosts, 1.5);
  ASSERT_TRUE(verdict.intra_host && verdict.inter_host);
  EXPECT_EQ(verdict.intra_host->links, 4);
  EXPECT_DOUBLE_EQ(verdict.intra_host->median_time_us, 0.5);
  EXPECT_EQ(verdict.inter_host->links, 8);
  EXPECT_DOUBLE_EQ(verdict.inter_host->median_time_us, 2.0);
  EXPECT_DOUBLE_EQ(verdict.inter_host->max_time_us, 10.0);
  ASSERT_EQ(verdict.slow.size(), 2u);
  EXPECT_EQ(verdict.slow[0].src, 0);
  EXPECT_EQ(verdict.slow[0].dst, 2);
  EXPECT_EQ(verdict.slow[0].src_host, "a");
  EXPECT_EQ(verdict.slow[0].dst_host, "b");
  EXPECT_EQ(verdict.slow[0].link_class, LinkClass::kInterHost);
  EXPECT_DOUBLE_EQ(verdict.slow[0].ratio, 5.0);
  EXPECT_EQ(verdict.slow[1].src, 2);
}

TEST(Pt2ptMatrix, ClassesAreJudgedApart) {
  // Shared memory is faster than the network: inter-host links are not slow for being inter-host.
  const auto links = links_of({{0, 1, 0.3}, {1, 0, 0.3}, {0, 2, 30}, {2, 0, 30}});
  EXPECT_TRUE(judge_links(links, {"a", "a", "b"}, 1.5).slow.empty());
  // One host only: no inter-host class at all.
  EXPECT_FALSE(judge_links(links_of({{0, 1, 1}, {1, 0, 1}}), {"a", "a"}, 1.5).inter_host);
}

TEST(Pt2ptMatrix, ExactlyTheFactorIsNotSlowAndHalfTheLinksSlowAreStillFound) {
  EXPECT_TRUE(judge_links(links_of({{0, 1, 1}, {1, 0, 1}, {0, 2, 1.5}}), {"a", "b", "c"}, 1.5).slow.empty());
  // Four hosts, one slow host: 6 of the 12 ordered links touch it (10x slower). The median is the
  // mean of the middle two (5.5 us), 10 > 1.5 x 5.5 and 1 is not: exactly the six are flagged.
  std::vector<std::tuple<int, int, double>> times;
  for (int src = 0; src < 4; ++src) {
    for (int dst = 0; dst < 4; ++dst) {
      if (src != dst) times.emplace_back(src, dst, src == 3 || dst == 3 ? 10.0 : 1.0);
    }
  }
  const SizeVerdict verdict = judge_links(links_of(times), {"a", "b", "c", "d"}, 1.5);
  EXPECT_DOUBLE_EQ(verdict.inter_host->median_time_us, 5.5);
  ASSERT_EQ(verdict.slow.size(), 6u);
  for (const SlowLink& link : verdict.slow) EXPECT_TRUE(link.src == 3 || link.dst == 3);
}

TEST(Pt2ptOptions, BadInputIsAUsageError) {
  EXPECT_THROW(parse_options({"--mode", "osu_latency"}), UsageError);
  EXPECT_THROW(parse_options({"--matrix", "--mode", "mbw_mr"}), UsageError);
  EXPECT_THROW(parse_options({"--matrix", "--sample-peers", "0"}), UsageError);
  EXPECT_THROW(parse_options({"--sample-peers", "2"}), UsageError);  // without --matrix
  EXPECT_THROW(parse_options({"--pair", "1,1"}), UsageError);
  EXPECT_THROW(parse_options({"--pair", "1"}), UsageError);
  EXPECT_THROW(parse_options({"--pair", "0,1", "--matrix"}), UsageError);
  EXPECT_THROW(parse_options({"-W", "0"}), UsageError);
  EXPECT_THROW(parse_options({"--slow-link-factor", "0.5", "--matrix"}), UsageError);
}

TEST(Pt2ptOptions, MatrixSizesDefaultToASmallAndALargeOne) {
  EXPECT_EQ(parse_options({"--matrix"}).requested_sizes(), (std::vector<std::uint64_t>{8, 1u << 20}));
  EXPECT_EQ(parse_options({"--matrix", "-b", "64", "-e", "256", "-f", "2"}).requested_sizes(), (std::vector<std::uint64_t>{64, 128, 256}));
  EXPECT_EQ(parse_options({}).requested_sizes().front(), 1u);
  EXPECT_EQ(parse_options({}).requested_sizes().back(), 1u << 20);
}

TEST(Pt2ptOptions, TheWorldBoundsPairsAndPeers) {
  EXPECT_THROW(check_against_world(parse_options({"--pair", "0,4"}), 4), UsageError);
  EXPECT_NO_THROW(check_against_world(parse_options({"--pair", "3,0"}), 4));
  EXPECT_THROW(check_against_world(parse_options({"--matrix", "--sample-peers", "4"}), 4), UsageError);
  EXPECT_NO_THROW(check_against_world(parse_options({"--matrix", "--sample-peers", "3"}), 4));
  EXPECT_THROW(check_against_world(parse_options({}), 1), UsageError);
}

TEST(Pt2ptFan, PatternsParseAndKeepTheirFlags) {
  const Pt2ptOptions fan_in = parse_options({"--pattern", "fan-in", "--root", "2", "--senders", "3"});
  EXPECT_EQ(fan_in.mode, Mode::kFanIn);
  EXPECT_EQ(fan_in.fan_root, 2);
  EXPECT_EQ(fan_in.fan_peers, 3);
  EXPECT_EQ(parse_options({"--pattern", "fan-out"}).mode, Mode::kFanOut);
  EXPECT_EQ(parse_options({"--pattern", "fan-out"}).fan_peers, 0);  // every other rank
  EXPECT_EQ(to_string(Mode::kFanIn), "fan-in");
  EXPECT_FALSE(parse_mode("fan-in"));  // --mode keeps OSU's four; the fans come through --pattern
  // OSU's bandwidth counts: 100 + 10 up to 8 KiB, 20 + 2 above.
  EXPECT_EQ(osu_iteration_counts(Mode::kFanOut, 8192).iterations, 100);
  EXPECT_EQ(osu_iteration_counts(Mode::kFanIn, 8193).warmup, 2);
  const nlohmann::json recorded = options_as_json(fan_in);
  EXPECT_EQ(recorded["pattern"], "fan-in");
  EXPECT_EQ(recorded["root"], 2);
  EXPECT_EQ(recorded["senders"], 3);
  EXPECT_FALSE(recorded.contains("pair"));
}

TEST(Pt2ptFan, BadFanInputIsAUsageError) {
  EXPECT_THROW(parse_options({"--pattern", "bogus"}), UsageError);
  EXPECT_THROW(parse_options({"--pattern", "fan-in", "--senders", "0"}), UsageError);
  EXPECT_THROW(parse_options({"--pattern", "fan-in", "--root", "-1"}), UsageError);
  EXPECT_THROW(parse_options({"--senders", "2"}), UsageError);  // without --pattern
  EXPECT_THROW(parse_options({"--root", "1"}), UsageError);
  EXPECT_THROW(parse_options({"--pattern", "fan-in", "--mode", "bw"}), UsageError);
  EXPECT_THROW(parse_options({"--pattern", "fan-out", "--matrix"}), UsageError);
  EXPECT_THROW(parse_options({"--pattern", "fan-in", "--pair", "0,1"}), UsageError);
}

TEST(Pt2ptFan, TheWorldBoundsTheRootAndTheSenders) {
  EXPECT_NO_THROW(check_against_world(parse_options({"--pattern", "fan-in", "--root", "3", "--senders", "3"}), 4));
  EXPECT_THROW(check_against_world(parse_options({"--pattern", "fan-in", "--root", "4"}), 4), UsageError);
  EXPECT_THROW(check_against_world(parse_options({"--pattern", "fan-out", "--senders", "4"}), 4), UsageError);
  EXPECT_NO_THROW(check_against_world(parse_options({"--pattern", "fan-out"}), 2));  // one peer: a fan of one
}

TEST(Pt2ptFan, PairsRunFromTheSendersToTheReceiver) {
  // Fan-in to rank 2 of 5: every other rank sends; fan-out: rank 2 sends to each.
  EXPECT_EQ(fan_pairs(Mode::kFanIn, 5, 2, 0), (std::vector<LinkPair>{{0, 2}, {1, 2}, {3, 2}, {4, 2}}));
  EXPECT_EQ(fan_pairs(Mode::kFanOut, 5, 2, 0), (std::vector<LinkPair>{{2, 0}, {2, 1}, {2, 3}, {2, 4}}));
  // --senders K: the first K ranks other than the root.
  EXPECT_EQ(fan_pairs(Mode::kFanIn, 5, 0, 2), (std::vector<LinkPair>{{1, 0}, {2, 0}}));
  EXPECT_EQ(fan_pairs(Mode::kFanOut, 2, 1, 1), (std::vector<LinkPair>{{1, 0}}));
}

TEST(Pt2ptFan, FiguresAreBytesOverEachEndsOwnTime) {
  // 3 peers, 1 KiB x window 4 x 10 iterations each: 40960 B a peer, 122880 B at the root.
  const FanFigures figures = fan_figures(1024, 4, 10, 100.0, {50.0, 100.0, 200.0});
  EXPECT_DOUBLE_EQ(figures.peer_bytes, 40960.0);
  EXPECT_DOUBLE_EQ(figures.total_bytes, 3 * 40960.0);
  EXPECT_DOUBLE_EQ(figures.root_gbps, 3 * 40960.0 / 100e3);  // bytes / (us x 1e3) = GB/s
  ASSERT_EQ(figures.peer_gbps.size(), 3u);
  EXPECT_DOUBLE_EQ(figures.peer_gbps[0], 40960.0 / 50e3);
  EXPECT_DOUBLE_EQ(figures.peer_gbps[2], 40960.0 / 200e3);
  EXPECT_DOUBLE_EQ(figures.share_min_gbps, figures.peer_gbps[2]);
  EXPECT_DOUBLE_EQ(figures.share_median_gbps, figures.peer_gbps[1]);
  EXPECT_DOUBLE_EQ(figures.share_max_gbps, figures.peer_gbps[0]);
  // An even count's median is the mean of the middle two; a peer that timed nothing has 0, not inf.
  const FanFigures even = fan_figures(8, 1, 1, 0.0, {1.0, 2.0, 0.0, 4.0});
  EXPECT_DOUBLE_EQ(even.root_gbps, 0.0);
  EXPECT_DOUBLE_EQ(even.share_min_gbps, 0.0);
  EXPECT_DOUBLE_EQ(even.share_median_gbps, (8.0 / 4e3 + 8.0 / 2e3) / 2);
}

}  // namespace
}  // namespace collbench::pt2pt
