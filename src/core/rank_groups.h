// Concurrent groups of ranks: which ranks run the same sweep together, at the same time as the
// other groups (issue 62).
//
// Two ways to say it:
// - nccl-tests' colour rule, so that a nccl-tests command line means the same here:
//   NCCL_TESTS_SPLIT "<op><value>" (op AND, OR, MOD, DIV or &, |, %, /; value decimal, 0x hex,
//   0b binary, a leading 0 octal, as strtoul reads it) and the older NCCL_TESTS_SPLIT_MASK
//   "<hex>", which means "AND <hex>". A rank's colour is rank OP value; equal colours share a group.
// - named patterns that need no arithmetic: host, rail, pairs, batch:K.
// Pure functions: the world's hosts come in as data, and every rank computes the same groups.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace collbench {

struct SplitRule {
  enum class Operation { kAnd, kOr, kMod, kDiv };
  Operation operation = Operation::kAnd;
  std::uint32_t value = 0;
  std::string text;  // as given, for messages and the report
};

// NCCL_TESTS_SPLIT's syntax. Stricter than nccl-tests where it would go on silently: an unknown
// operator (nccl-tests puts every rank in group 0), trailing characters (it ignores them), a
// negative or overflowing value, and MOD or DIV by 0 (it divides by zero) are refused with
// UsageError naming the text.
SplitRule parse_split_rule(const std::string& text);
// NCCL_TESTS_SPLIT_MASK's syntax: hexadecimal with or without 0x, read as nccl-tests reads it
// (strtoul base 16), meaning AND <mask>.
SplitRule parse_split_mask(const std::string& text);
std::int64_t colour_of(const SplitRule& rule, int rank);

// A named pattern. batch:K draws random disjoint groups of K from the seed (recorded in the
// report, so a run can be repeated).
struct GroupPattern {
  enum class Kind { kHost, kRail, kPairs, kBatch };
  Kind kind = Kind::kHost;
  int batch_size = 0;  // K of batch:K
  std::string text;
};
GroupPattern parse_group_pattern(const std::string& text);  // "host", "rail", "pairs", "batch:K"

// One group: its ranks in world order. Groups are numbered by their lowest rank.
struct RankGroup {
  int id = 0;
  std::vector<int> ranks;
};

// The groups of a world whose rank r runs on hosts[r], under a rule or a pattern. Refused with
// UsageError: a world where every group has one rank (nothing would cross a link), pairs on an odd
// world, batch:K on a world K does not divide.
std::vector<RankGroup> groups_by_rule(const SplitRule& rule, int world_size);
std::vector<RankGroup> groups_by_pattern(const GroupPattern& pattern, const std::vector<std::string>& hosts,
                                         std::uint64_t seed);
// Groups from colours (one per rank): equal colours share a group, numbered by lowest rank.
std::vector<RankGroup> groups_from_colours(const std::vector<std::int64_t>& colours);

// The group holding rank; groups must cover it.
const RankGroup& group_of(const std::vector<RankGroup>& groups, int rank);

}  // namespace collbench
