#include "core/rank_groups.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <random>

#include "core/error.h"
#include "core/printable.h"

namespace collbench {
namespace {

std::string quoted(const std::string& text) { return "'" + printable(text) + "'"; }

bool starts_with_ignoring_case(const std::string& text, const std::string& prefix) {
  if (text.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(text[i])) != prefix[i]) return false;
  }
  return true;
}

// strtoul's reading of an unsigned number in `base` (0: a 0x prefix is hex, a leading 0 octal),
// plus nccl-tests' 0b for binary; the whole rest must be the number (spaces around it allowed).
std::uint32_t parse_whole_number(const std::string& text, int base, const std::string& what) {
  std::size_t begin = 0;
  while (begin < text.size() && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  std::size_t end = text.size();
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  std::string digits = text.substr(begin, end - begin);
  if (base == 0 && digits.size() > 2 && digits[0] == '0' && (digits[1] == 'b' || digits[1] == 'B')) {
    base = 2;
    digits = digits.substr(2);
  } else if (base == 16 && digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    digits = digits.substr(2);
  } else if (base == 0 && digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    base = 16;
    digits = digits.substr(2);
  } else if (base == 0) {
    base = digits.size() > 1 && digits[0] == '0' ? 8 : 10;
  }
  if (digits.empty()) throw UsageError(what + ": no number");
  std::uint64_t value = 0;
  for (const char c : digits) {
    int digit = -1;
    if (c >= '0' && c <= '9') digit = c - '0';
    else if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
    if (digit < 0 || digit >= base) throw UsageError(what + ": '" + printable(std::string(1, c)) + "' is not a base-" + std::to_string(base) + " digit");
    value = value * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(digit);
    // nccl-tests keeps the value in an int: above that its colour would wrap.
    if (value > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max())) {
      throw UsageError(what + ": the value is above " + std::to_string(std::numeric_limits<std::int32_t>::max()));
    }
  }
  return static_cast<std::uint32_t>(value);
}

void refuse_all_alone(const std::vector<RankGroup>& groups, const std::string& how) {
  if (groups.size() > 1 && std::all_of(groups.begin(), groups.end(), [](const RankGroup& g) { return g.ranks.size() == 1; })) {
    throw UsageError(how + " puts each of the " + std::to_string(groups.size()) +
                     " ranks in a group of its own: nothing would cross a link (choose a rule that leaves 2 or more ranks a group)");
  }
}

}  // namespace

SplitRule parse_split_rule(const std::string& text) {
  struct Spelling {
    const char* word;
    const char* symbol;
    SplitRule::Operation operation;
  };
  static constexpr Spelling kSpellings[] = {{"AND", "&", SplitRule::Operation::kAnd},
                                            {"OR", "|", SplitRule::Operation::kOr},
                                            {"MOD", "%", SplitRule::Operation::kMod},
                                            {"DIV", "/", SplitRule::Operation::kDiv}};
  std::size_t begin = 0;
  while (begin < text.size() && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  const std::string rest = text.substr(begin);
  const std::string what = "split rule " + quoted(text);
  for (const Spelling& spelling : kSpellings) {
    for (const char* prefix : {spelling.word, spelling.symbol}) {
      if (!starts_with_ignoring_case(rest, prefix)) continue;
      const std::size_t prefix_length = std::char_traits<char>::length(prefix);
      SplitRule rule;
      rule.operation = spelling.operation;
      rule.value = parse_whole_number(rest.substr(prefix_length), 0, what);
      rule.text = text;
      if (rule.value == 0 && (rule.operation == SplitRule::Operation::kMod || rule.operation == SplitRule::Operation::kDiv)) {
        throw UsageError(what + ": " + spelling.word + " by 0");
      }
      return rule;
    }
  }
  throw UsageError(what + ": want AND, OR, MOD or DIV (or &, |, %, /) and a number, e.g. 'MOD 8' or 'AND 0x7'");
}

SplitRule parse_split_mask(const std::string& text) {
  SplitRule rule;
  rule.operation = SplitRule::Operation::kAnd;
  rule.value = parse_whole_number(text, 16, "split mask " + quoted(text));
  rule.text = formatted("AND 0x%x", static_cast<unsigned>(rule.value));
  return rule;
}

std::int64_t colour_of(const SplitRule& rule, int rank) {
  const std::int64_t r = rank, v = rule.value;
  switch (rule.operation) {
    case SplitRule::Operation::kAnd: return r & v;
    case SplitRule::Operation::kOr: return r | v;
    case SplitRule::Operation::kMod: return r % v;
    case SplitRule::Operation::kDiv: return r / v;
  }
  return 0;
}

GroupPattern parse_group_pattern(const std::string& text) {
  GroupPattern pattern;
  pattern.text = text;
  if (text == "host") pattern.kind = GroupPattern::Kind::kHost;
  else if (text == "rail") pattern.kind = GroupPattern::Kind::kRail;
  else if (text == "pairs") pattern.kind = GroupPattern::Kind::kPairs;
  else if (text.rfind("batch:", 0) == 0) {
    pattern.kind = GroupPattern::Kind::kBatch;
    const std::uint32_t size = parse_whole_number(text.substr(6), 10, "group pattern " + quoted(text));
    if (size < 2) throw UsageError("group pattern " + quoted(text) + ": a batch needs 2 or more ranks");
    pattern.batch_size = static_cast<int>(size);
  } else {
    throw UsageError("group pattern " + quoted(text) + ": want host, rail, pairs or batch:K");
  }
  return pattern;
}

std::vector<RankGroup> groups_from_colours(const std::vector<std::int64_t>& colours) {
  std::vector<RankGroup> groups;
  std::map<std::int64_t, std::size_t> group_of_colour;
  for (std::size_t rank = 0; rank < colours.size(); ++rank) {
    const auto [where, added] = group_of_colour.emplace(colours[rank], groups.size());
    if (added) groups.push_back(RankGroup{static_cast<int>(groups.size()), {}});
    groups[where->second].ranks.push_back(static_cast<int>(rank));
  }
  return groups;
}

std::vector<RankGroup> groups_by_rule(const SplitRule& rule, int world_size) {
  std::vector<std::int64_t> colours(static_cast<std::size_t>(world_size));
  for (int rank = 0; rank < world_size; ++rank) colours[static_cast<std::size_t>(rank)] = colour_of(rule, rank);
  std::vector<RankGroup> groups = groups_from_colours(colours);
  refuse_all_alone(groups, "split rule " + quoted(rule.text) + " at " + std::to_string(world_size) + " ranks");
  return groups;
}

std::vector<RankGroup> groups_by_pattern(const GroupPattern& pattern, const std::vector<std::string>& hosts,
                                         std::uint64_t seed) {
  const auto world = static_cast<std::int64_t>(hosts.size());
  const std::string how = "--groups " + pattern.text + " at " + std::to_string(world) + " ranks";
  std::vector<std::int64_t> colours(hosts.size());
  switch (pattern.kind) {
    case GroupPattern::Kind::kHost:
    case GroupPattern::Kind::kRail: {
      // A host's number in order of first appearance; a rank's local index among its host's ranks
      // in world order, as nccl-tests counts localRank.
      std::map<std::string, std::int64_t> host_number, ranks_seen;
      for (std::size_t rank = 0; rank < hosts.size(); ++rank) {
        const auto number = host_number.emplace(hosts[rank], static_cast<std::int64_t>(host_number.size())).first->second;
        colours[rank] = pattern.kind == GroupPattern::Kind::kHost ? number : ranks_seen[hosts[rank]]++;
      }
      break;
    }
    case GroupPattern::Kind::kPairs:
      if (world % 2 != 0) throw UsageError(how + ": pairs (rank r with r + N/2) needs an even world");
      for (std::int64_t rank = 0; rank < world; ++rank) colours[static_cast<std::size_t>(rank)] = rank % (world / 2);
      break;
    case GroupPattern::Kind::kBatch: {
      if (world % pattern.batch_size != 0) {
        throw UsageError(how + ": " + std::to_string(pattern.batch_size) + " does not divide the world");
      }
      // Fisher-Yates with a draw of our own: std::shuffle's and the distributions' algorithms are
      // the library's choice, and the seed must give the same groups on every machine.
      std::vector<std::int64_t> order(hosts.size());
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::int64_t>(i);
      std::mt19937_64 draw(seed);
      for (std::size_t i = order.size(); i > 1; --i) {
        const std::uint64_t bound = i, limit = std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % bound;
        std::uint64_t value = draw();
        while (value >= limit) value = draw();
        std::swap(order[i - 1], order[static_cast<std::size_t>(value % bound)]);
      }
      // Position p of the shuffled order goes to batch p / K; colours are the batch's lowest rank,
      // so the groups are numbered by their lowest rank like every other rule's.
      std::vector<std::int64_t> lowest(static_cast<std::size_t>(world / pattern.batch_size), world);
      for (std::size_t p = 0; p < order.size(); ++p) {
        auto& low = lowest[p / static_cast<std::size_t>(pattern.batch_size)];
        low = std::min(low, order[p]);
      }
      for (std::size_t p = 0; p < order.size(); ++p) {
        colours[static_cast<std::size_t>(order[p])] = lowest[p / static_cast<std::size_t>(pattern.batch_size)];
      }
      break;
    }
  }
  std::vector<RankGroup> groups = groups_from_colours(colours);
  refuse_all_alone(groups, how);
  return groups;
}

const RankGroup& group_of(const std::vector<RankGroup>& groups, int rank) {
  for (const RankGroup& group : groups) {
    if (std::find(group.ranks.begin(), group.ranks.end(), rank) != group.ranks.end()) return group;
  }
  throw Error("rank " + std::to_string(rank) + " is in no group");
}

}  // namespace collbench
