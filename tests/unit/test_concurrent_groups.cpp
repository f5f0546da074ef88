// Concurrent groups' row figures and SLOW verdict (issue 62), on fixture rows.
#include <gtest/gtest.h>

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

TEST(ConcurrentGroups, SlowBelowTheFactorOfTheMedianAtTheLargestSizeOnly) {
  const nlohmann::json rows = nlohmann::json::array({
      // At the small size group 2 is slow, which is not judged.
      row(64, {group(0, {0, 3}, {"a", "b"}, 1.0), group(1, {1, 4}, {"a", "b"}, 1.0), group(2, {2, 5}, {"a", "c"}, 0.1)}),
      row(1024, {group(0, {0, 3}, {"a", "b"}, 10.0), group(1, {1, 4}, {"a", "b"}, 9.5), group(2, {2, 5}, {"a", "c"}, 8.0)}),
      row(1024, {group(0, {0, 3}, {"a", "b"}, 10.0), group(1, {1, 4}, {"a", "b"}, 9.5), group(2, {2, 5}, {"a", "c"}, 9.0)}),
  });
  const std::vector<report::GroupVerdict> slow = report::slow_groups(rows, 0.9);  // median 9.5; 8.5 < 8.55
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].id, 2);
  EXPECT_DOUBLE_EQ(slow[0].busbw_gbps, 8.5);
  EXPECT_DOUBLE_EQ(slow[0].median_busbw_gbps.value_or(0), 9.5);
  EXPECT_EQ(slow[0].bytes, 1024u);
  const std::string line = report::slow_group_line(slow[0], 0.9);
  EXPECT_NE(line.find("SLOW group 2 (ranks 2,5; hosts a,c)"), std::string::npos) << line;
  EXPECT_TRUE(report::slow_groups(rows, 0.85).empty());  // 8.5 >= 0.85 x 9.5
}

TEST(ConcurrentGroups, OnlySameSizeGroupsAreCompared) {
  // MOD 3 over 4 ranks: {0,3} of two, {1} and {2} alone; the lone ones have no busbw to compare.
  const nlohmann::json rows = nlohmann::json::array({row(
      4096, {group(0, {0, 3}, {"a", "a"}, 1.0), group(1, {1}, {"a"}, 0.0), group(2, {2}, {"a"}, 0.0), group(3, {4, 5}, {"b", "b"}, 5.0)})});
  const std::vector<report::GroupVerdict> slow = report::slow_groups(rows, 0.9);  // the 2-rank pair: median 3.0; 1.0 is slow
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].id, 0);
  // Every group has its verdict; the lone ones (one rank each: two "peers", but no data crosses
  // ranks), and nothing else, are not judged.
  const std::vector<report::GroupVerdict> all = report::judge_groups(rows, 0.9);
  ASSERT_EQ(all.size(), 4u);
  EXPECT_FALSE(all[1].median_busbw_gbps.has_value());
  EXPECT_FALSE(all[2].median_busbw_gbps.has_value());
  EXPECT_DOUBLE_EQ(all[3].median_busbw_gbps.value_or(0), 3.0);
  EXPECT_FALSE(all[3].slow);
  EXPECT_TRUE(report::slow_groups(nlohmann::json::array({{{"bytes", 8}, {"busbw_gbps", 1.0}}}), 0.9).empty());  // a report before groups
}

}  // namespace
}  // namespace collbench
