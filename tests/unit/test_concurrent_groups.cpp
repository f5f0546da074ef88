// Concurrent groups' row figures and SLOW verdict (issue 62), on fixture rows.
#include <gtest/gtest.h>

#include "core/stats.h"
#include "report/group_view.h"
#include "workloads/collectives/concurrent_groups.h"

namespace collbench {
namespace {

nlohmann::json group(int id, std::vector<int> ranks, std::vector<std::string> hosts, double busbw) {
  return {{"id", id}, {"ranks", ranks}, {"hosts", hosts}, {"busbw_gbps", busbw}};
}

nlohmann::json row(std::uint64_t bytes, nlohmann::json groups) {
  return {{"bytes", bytes}, {"busbw_gbps", 1.0}, {"groups", std::move(groups)}};
}

TEST(ConcurrentGroups, AggregateIsTotalBytesOverTheSlowestGroupAndTheSumOfBusbw) {
  const RankGroup a{0, {0, 2}}, b{1, {1, 3}};
  GroupFigures fast{&a, {"h0", "h1"}, 1000, {}, 1.0}, slow{&b, {"h0", "h1"}, 1000, {}, 1.0};
  fast.time_us.mean = 1.0;  // 1000 B / 1 us = 1 GB/s
  slow.time_us.mean = 4.0;  // 0.25 GB/s
  const std::vector<GroupFigures> figures{fast, slow};
  EXPECT_EQ(slowest_group(figures), 1u);
  const nlohmann::json aggregate = aggregate_json(figures);
  EXPECT_EQ(aggregate["bytes_total"], 2000u);
  EXPECT_DOUBLE_EQ(aggregate["time_us"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(aggregate["algbw_gbps"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(aggregate["busbw_sum_gbps"].get<double>(), 1.25);
  const nlohmann::json groups = groups_json(figures);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[1]["ranks"], (std::vector<int>{1, 3}));
  EXPECT_DOUBLE_EQ(groups[1]["busbw_gbps"].get<double>(), 0.25);
}

TEST(ConcurrentGroups, SlowBelowTheFactorOfTheFasterHalfsMedianAtTheLargestSizeOnly) {
  const nlohmann::json rows = nlohmann::json::array({
      // At the small size group 2 is slow, which is not judged.
      row(64, {group(0, {0, 3}, {"a", "b"}, 1.0), group(1, {1, 4}, {"a", "b"}, 1.0), group(2, {2, 5}, {"a", "c"}, 0.1)}),
      row(1024, {group(0, {0, 3}, {"a", "b"}, 10.0), group(1, {1, 4}, {"a", "b"}, 9.5), group(2, {2, 5}, {"a", "c"}, 8.0)}),
      row(1024, {group(0, {0, 3}, {"a", "b"}, 10.0), group(1, {1, 4}, {"a", "b"}, 9.5), group(2, {2, 5}, {"a", "c"}, 9.0)}),
  });
  // Group 2's busbw is the mean of its rows, 8.5; the faster half is {10, 9.5}, its median 9.75.
  const std::vector<report::GroupVerdict> slow = report::slow_groups(rows, 0.9);  // 8.5 < 8.775
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].id, 2);
  EXPECT_DOUBLE_EQ(slow[0].busbw_gbps, 8.5);
  EXPECT_DOUBLE_EQ(slow[0].reference_busbw_gbps.value_or(0), 9.75);
  EXPECT_EQ(slow[0].bytes, 1024u);
  const std::string line = report::slow_group_line(slow[0], 0.9);
  EXPECT_NE(line.find("SLOW group 2 (ranks 2,5; hosts a,c)"), std::string::npos) << line;
  EXPECT_NE(line.find("8.500 GB/s at 1 KiB is below 0.9 x 9.750 GB/s, the median of the faster half of the 2-rank groups"), std::string::npos)
      << line;
  EXPECT_TRUE(report::slow_groups(rows, 0.85).empty());  // 8.5 >= 0.85 x 9.75 = 8.2875
}

TEST(ConcurrentGroups, OnlySameSizeGroupsAreCompared) {
  // MOD 3 over 4 ranks: {0,3} of two, {1} and {2} alone; the lone ones have no busbw to compare.
  const nlohmann::json rows = nlohmann::json::array({row(
      4096, {group(0, {0, 3}, {"a", "a"}, 1.0), group(1, {1}, {"a"}, 0.0), group(2, {2}, {"a"}, 0.0), group(3, {4, 5}, {"b", "b"}, 5.0)})});
  const std::vector<report::GroupVerdict> slow = report::slow_groups(rows, 0.9);  // the 2-rank groups: reference 5.0; 1.0 is slow
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].id, 0);
  // Every group has its verdict; the lone ones (one rank each: two "peers", but no data crosses
  // ranks), and nothing else, are not judged.
  const std::vector<report::GroupVerdict> all = report::judge_groups(rows, 0.9);
  ASSERT_EQ(all.size(), 4u);
  EXPECT_FALSE(all[1].reference_busbw_gbps.has_value());
  EXPECT_FALSE(all[2].reference_busbw_gbps.has_value());
  EXPECT_DOUBLE_EQ(all[3].reference_busbw_gbps.value_or(0), 5.0);
  EXPECT_FALSE(all[3].slow);
  EXPECT_TRUE(report::slow_groups(nlohmann::json::array({{{"bytes", 8}, {"busbw_gbps", 1.0}}}), 0.9).empty());  // a report before groups
}

// The SLOW rule (report::kSlowGroupRule) on closed forms: one row of pair groups {2i, 2i+1} at
// one size, group i's busbw the i-th value; the ids judged SLOW at `factor`.
std::vector<int> slow_ids(const std::vector<double>& busbw, double factor = 0.9) {
  nlohmann::json groups = nlohmann::json::array();
  for (std::size_t i = 0; i < busbw.size(); ++i) {
    const int id = static_cast<int>(i);
    groups.push_back(group(id, {2 * id, 2 * id + 1}, {"h" + std::to_string(id)}, busbw[i]));
  }
  std::vector<int> ids;
  for (const report::GroupVerdict& verdict : report::slow_groups(nlohmann::json::array({row(4096, groups)}), factor)) ids.push_back(verdict.id);
  return ids;
}

TEST(SlowGroupRule, TheReferenceIsTheMedianOfTheUpperHalf) {
  EXPECT_DOUBLE_EQ(median_of_upper_half({7}), 7);
  EXPECT_DOUBLE_EQ(median_of_upper_half({3, 9}), 9);                 // of two, the larger
  EXPECT_DOUBLE_EQ(median_of_upper_half({4, 10, 8}), 9);             // ceil(3/2) = 2: {8, 10}
  EXPECT_DOUBLE_EQ(median_of_upper_half({1, 2, 10, 6}), 8);          // {6, 10}
  EXPECT_DOUBLE_EQ(median_of_upper_half({5, 1, 9, 7, 3}), 7);        // {5, 7, 9}
  EXPECT_DOUBLE_EQ(median_of_upper_half({2, 2, 2, 2, 2, 2}), 2);     // ties
  EXPECT_THROW(median_of_upper_half({}), std::invalid_argument);
}

TEST(SlowGroupRule, HalfOfTheGroupsThroughOneSlowLinkAreCalled) {
  // A bisection of four hosts with one slow host link: 2 of 4 pairs cross it. The reference is
  // 10 (the faster two); 8.5 < 9. The median of all, 9.25, would call neither (8.5 >= 8.325).
  EXPECT_EQ(slow_ids({10, 10, 8.5, 8.5}), (std::vector<int>{2, 3}));
  EXPECT_EQ(slow_ids({8.5, 10, 8.5, 10}), (std::vector<int>{0, 2}));  // wherever they are
  // More than half slow: the faster half holds a slow one, reference (10 + 3) / 2 = 6.5; 3 < 5.85.
  EXPECT_EQ(slow_ids({10, 3, 3, 3}), (std::vector<int>{1, 2, 3}));
}

TEST(SlowGroupRule, OneSlowGroupAndOnlyIt) {
  // Faster half {10.5, 10}: reference 10.25, threshold 9.225; 9.5 is not SLOW, 5 is.
  EXPECT_EQ(slow_ids({10, 9.5, 10.5, 5}), (std::vector<int>{3}));
}

TEST(SlowGroupRule, NoiseUnderTheFactorIsNotSlowAndTheFactorIsStrict) {
  // Reference (10 + 9.6) / 2 = 9.8, threshold 8.82: every group within it.
  EXPECT_TRUE(slow_ids({10, 9.6, 9.3, 8.9}).empty());
  // Exactly F x the reference (0.9 x 10 = 9) is not below it; just under is.
  EXPECT_TRUE(slow_ids({10, 10, 9, 9}).empty());
  EXPECT_EQ(slow_ids({10, 10, 9, 8.99}), (std::vector<int>{3}));
  // The user's factor sets the margin: at 0.8 the 8.5 pairs of the slow link are within it.
  EXPECT_TRUE(slow_ids({10, 10, 8.5, 8.5}, 0.8).empty());
  EXPECT_TRUE(slow_ids({10, 10, 1, 1}, 0).empty());  // 0: never SLOW
}

TEST(SlowGroupRule, TiesAreNeverSlow) {
  EXPECT_TRUE(slow_ids({5, 5, 5, 5}).empty());
  EXPECT_TRUE(slow_ids({5, 5}).empty());
  EXPECT_EQ(slow_ids({10, 10, 10, 4}), (std::vector<int>{3}));
}

TEST(SlowGroupRule, OfTwoGroupsTheSlowerIsJudgedAgainstTheFaster) {
  EXPECT_EQ(slow_ids({10, 8.9}), (std::vector<int>{1}));  // 8.9 < 9
  EXPECT_TRUE(slow_ids({9.1, 10}).empty());               // 9.1 >= 9
  // The median of the two, 9.3, would have called it only below 8.37.
  EXPECT_EQ(slow_ids({8.6, 10}), (std::vector<int>{0}));
}

TEST(SlowGroupRule, AReportFromBeforeTheRuleIsJudgedAgainstTheMedianOfAll) {
  EXPECT_EQ(report::slow_group_reference_of(nlohmann::json::object()), report::SlowGroupReference::kMedianOfAll);
  EXPECT_EQ(report::slow_group_reference_of({{"slow_group_reference", "median_of_faster_half"}}),
            report::SlowGroupReference::kMedianOfFasterHalf);
  EXPECT_EQ(report::slow_group_reference_of({{"slow_group_reference", "median_of_all"}}), report::SlowGroupReference::kMedianOfAll);
  EXPECT_FALSE(report::slow_group_reference_of({{"slow_group_reference", "mean"}}).has_value());
  EXPECT_FALSE(report::slow_group_reference_of({{"slow_group_reference", 1}}).has_value());
  // The half-slow bisection: the median of all, 9.25, calls neither 8.5 (>= 8.325).
  const nlohmann::json rows = nlohmann::json::array(
      {row(4096, {group(0, {0, 4}, {"a", "c"}, 10), group(1, {1, 5}, {"a", "c"}, 10), group(2, {2, 6}, {"b", "d"}, 8.5),
                  group(3, {3, 7}, {"b", "d"}, 8.5)})});
  EXPECT_TRUE(report::slow_groups(rows, 0.9, report::SlowGroupReference::kMedianOfAll).empty());
  const std::vector<report::GroupVerdict> at_median = report::slow_groups(rows, 0.95, report::SlowGroupReference::kMedianOfAll);
  ASSERT_EQ(at_median.size(), 2u);  // 8.5 < 0.95 x 9.25 = 8.7875
  EXPECT_NE(report::slow_group_line(at_median[0], 0.95).find("below 0.95 x 9.250 GB/s, the median of the 2-rank groups"), std::string::npos);
  EXPECT_EQ(report::slow_groups(rows, 0.9).size(), 2u);  // a run's own: the faster half, 10
}

TEST(SlowGroupRule, OddCounts) {
  // Three groups: the faster half is the two fastest, {9.5, 10}: reference 9.75, threshold 8.775.
  EXPECT_EQ(slow_ids({10, 9.5, 4}), (std::vector<int>{2}));
  EXPECT_TRUE(slow_ids({10, 9.5, 9}).empty());
  // Five, two slow: the faster half {10, 10, 10}; five, three slow: {3, 10, 10}, its median 10.
  EXPECT_EQ(slow_ids({10, 3, 10, 3, 10}), (std::vector<int>{1, 3}));
  EXPECT_EQ(slow_ids({3, 10, 3, 3, 10}), (std::vector<int>{0, 2, 3}));
}

}  // namespace
}  // namespace collbench
