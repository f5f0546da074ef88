// Concurrent groups (src/core/rank_groups.h): nccl-tests' colour rule for NCCL_TESTS_SPLIT and
// NCCL_TESTS_SPLIT_MASK (src/common.cu's run(): colour = rank OP value, MPI_Comm_split by colour
// with the world rank as key), the named patterns, and the refusals.
#include <gtest/gtest.h>

#include <set>

#include "core/error.h"
#include "core/rank_groups.h"

namespace collbench {
namespace {

using Groups = std::vector<std::vector<int>>;

Groups ranks_of(const std::vector<RankGroup>& groups) {
  Groups out;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    EXPECT_EQ(groups[i].id, static_cast<int>(i));
    out.push_back(groups[i].ranks);
  }
  return out;
}

Groups by_rule(const std::string& text, int world) { return ranks_of(groups_by_rule(parse_split_rule(text), world)); }

// The examples of nccl-tests' README on 2 nodes of 8 GPUs, each spelling of them.
TEST(RankGroups, TheReadmeExamplesAtTwoNodesOfEight) {
  const Groups one_per_node_each = {{0, 8}, {1, 9}, {2, 10}, {3, 11}, {4, 12}, {5, 13}, {6, 14}, {7, 15}};
  for (const char* text : {"AND 0x7", "and 7", "&7", "MOD 8", "%8", "AND 0b111", "MOD 010"}) {
    EXPECT_EQ(by_rule(text, 16), one_per_node_each) << text;
  }
  const Groups per_node = {{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13, 14, 15}};
  for (const char* text : {"OR 0x7", "|7", "DIV 8", "/ 8", "div 0x8"}) EXPECT_EQ(by_rule(text, 16), per_node) << text;
  for (const char* text : {"AND 0x1", "MOD 2"}) {
    EXPECT_EQ(by_rule(text, 16), (Groups{{0, 2, 4, 6, 8, 10, 12, 14}, {1, 3, 5, 7, 9, 11, 13, 15}})) << text;
  }
}

TEST(RankGroups, ColoursAreRankOpValue) {
  EXPECT_EQ(colour_of(parse_split_rule("AND 6"), 13), 13 & 6);
  EXPECT_EQ(colour_of(parse_split_rule("OR 6"), 9), 9 | 6);
  EXPECT_EQ(colour_of(parse_split_rule("MOD 3"), 11), 11 % 3);
  EXPECT_EQ(colour_of(parse_split_rule("DIV 3"), 11), 11 / 3);
}

// NCCL_TESTS_SPLIT_MASK is read as hexadecimal (strtoul base 16) and means AND.
TEST(RankGroups, TheOlderMaskIsHexadecimalAnd) {
  EXPECT_EQ(parse_split_mask("7").value, 7u);
  EXPECT_EQ(parse_split_mask("0x7").value, 7u);
  EXPECT_EQ(parse_split_mask("10").value, 16u);
  EXPECT_EQ(parse_split_mask("10").text, "AND 0x10");
  EXPECT_EQ(ranks_of(groups_by_rule(parse_split_mask("1"), 4)), (Groups{{0, 2}, {1, 3}}));
  EXPECT_THROW(parse_split_mask("g"), UsageError);
}

// Where nccl-tests goes on silently (every rank in group 0, trailing text ignored, a division by
// zero, a wrapped int), collbench refuses with the text named.
TEST(RankGroups, BadRulesAreRefusedWithTheirText) {
  for (const char* text : {"XOR 3", "", "MOD", "MOD 0", "DIV 0", "MOD 8x", "MOD -1", "MOD 99999999999", "AND 0b2", "MOD 09"}) {
    try {
      parse_split_rule(text);
      ADD_FAILURE() << "accepted '" << text << "'";
    } catch (const UsageError& error) {
      EXPECT_NE(std::string(error.what()).find(std::string("'") + text + "'"), std::string::npos) << error.what();
    }
  }
  try {
    parse_split_rule("MOD \x1b[31m");
    ADD_FAILURE();
  } catch (const UsageError& error) {
    EXPECT_EQ(std::string(error.what()).find('\x1b'), std::string::npos) << "an escape reached the message";
  }
}

TEST(RankGroups, EveryRankAloneIsRefusedAllInOneIsNot) {
  EXPECT_THROW(by_rule("AND 0xff", 4), UsageError);
  EXPECT_THROW(by_rule("MOD 4", 4), UsageError);
  EXPECT_EQ(by_rule("AND 0", 4), (Groups{{0, 1, 2, 3}}));
  EXPECT_EQ(by_rule("MOD 1", 1), (Groups{{0}}));  // one rank: one group, as without a rule
}

TEST(RankGroups, HostAndRailFromTheRanksHosts) {
  const std::vector<std::string> hosts = {"a", "a", "b", "b", "c", "c"};
  EXPECT_EQ(ranks_of(groups_by_pattern(parse_group_pattern("host"), hosts, 0)), (Groups{{0, 1}, {2, 3}, {4, 5}}));
  EXPECT_EQ(ranks_of(groups_by_pattern(parse_group_pattern("rail"), hosts, 0)), (Groups{{0, 2, 4}, {1, 3, 5}}));
  // Ranks of a host need not be consecutive: rail counts each host's ranks in world order.
  const std::vector<std::string> interleaved = {"a", "b", "a", "b"};
  EXPECT_EQ(ranks_of(groups_by_pattern(parse_group_pattern("rail"), interleaved, 0)), (Groups{{0, 1}, {2, 3}}));
  EXPECT_EQ(ranks_of(groups_by_pattern(parse_group_pattern("host"), interleaved, 0)), (Groups{{0, 2}, {1, 3}}));
  // One rank a host: host puts each alone.
  EXPECT_THROW(groups_by_pattern(parse_group_pattern("host"), {"a", "b", "c"}, 0), UsageError);
}

TEST(RankGroups, PairsAreABisection) {
  const std::vector<std::string> hosts(8, "a");
  EXPECT_EQ(ranks_of(groups_by_pattern(parse_group_pattern("pairs"), hosts, 0)), (Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
  EXPECT_THROW(groups_by_pattern(parse_group_pattern("pairs"), std::vector<std::string>(3, "a"), 0), UsageError);
}

TEST(RankGroups, BatchesAreDisjointSeededAndTheSameForTheSameSeed) {
  const std::vector<std::string> hosts(12, "a");
  const auto pattern = parse_group_pattern("batch:3");
  const Groups first = ranks_of(groups_by_pattern(pattern, hosts, 42));
  EXPECT_EQ(first, ranks_of(groups_by_pattern(pattern, hosts, 42)));
  ASSERT_EQ(first.size(), 4u);
  std::set<int> seen;
  for (const auto& group : first) {
    EXPECT_EQ(group.size(), 3u);
    seen.insert(group.begin(), group.end());
  }
  EXPECT_EQ(seen.size(), 12u);
  bool some_seed_differs = false;
  for (std::uint64_t seed = 1; seed < 20 && !some_seed_differs; ++seed) {
    some_seed_differs = ranks_of(groups_by_pattern(pattern, hosts, seed)) != first;
  }
  EXPECT_TRUE(some_seed_differs);
  EXPECT_THROW(groups_by_pattern(pattern, std::vector<std::string>(4, "a"), 1), UsageError);
}

TEST(RankGroups, BadPatternsAreRefused) {
  for (const char* text : {"hosts", "batch:", "batch:1", "batch:x", "batch:-2", "", "pair"}) {
    EXPECT_THROW(parse_group_pattern(text), UsageError) << text;
  }
}

TEST(RankGroups, GroupOfFindsTheRanksGroup) {
  const auto groups = groups_by_rule(parse_split_rule("MOD 2"), 6);
  EXPECT_EQ(group_of(groups, 3).id, 1);
  EXPECT_EQ(group_of(groups, 4).ranks, (std::vector<int>{0, 2, 4}));
  EXPECT_THROW(group_of(groups, 6), Error);
}

}  // namespace
}  // namespace collbench
