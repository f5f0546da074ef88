// Values of command-line flags (numbers, lists, key=value tags), with the flag named in every
// error: the value parsers core/command_line.h hands every flag's text to.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"

namespace collbench {

// A decimal integer in [lowest, highest]; anything else (trailing text, overflow) is a UsageError.
long long parse_integer(const std::string& value, const std::string& flag, long long lowest, long long highest);

// A yes/no flag's value: exactly "yes" or "no"; anything else is a UsageError naming the flag.
bool parse_yes_no(const std::string& value, const std::string& flag);
// A finite number in [lowest, highest]; NaN, inf, trailing text and overflow are UsageErrors.
double parse_real(const std::string& value, const std::string& flag,
                  double lowest = std::numeric_limits<double>::lowest(),
                  double highest = std::numeric_limits<double>::max());

// "a,b,,c" -> {"a", "b", "", "c"}; a trailing separator gives a trailing empty item so callers can reject it.
std::vector<std::string> split_list(const std::string& value, char separator = ',');

// "a,b" or "all" -> the items `parse_item` (text -> std::optional<T>) gives; an unknown item or an
// empty list is a UsageError that names the flag and the `choices`.
template <typename T, typename ParseItem>
std::vector<T> parse_choice_list(const std::string& value, const std::string& flag, ParseItem parse_item, const std::vector<T>& all,
                                 const std::string& what, const std::string& choices) {
  if (value == "all") return all;
  std::vector<T> items;
  for (const auto& item : split_list(value)) {
    const auto parsed = parse_item(item);
    if (!parsed) throw UsageError("unknown " + what + " '" + item + "' for " + flag + " (use " + choices + " or all)");
    items.push_back(*parsed);
  }
  if (items.empty()) throw UsageError(flag + " expects at least one " + what);
  return items;
}

// "8,64K,1M" -> sizes in bytes for --sizes; an empty item, an empty list or a 0 is a UsageError.
std::vector<std::uint64_t> parse_size_list(const std::string& value, const std::string& flag);

// "key=value" for --tag: the key is 1-64 letters, digits, '_', '-' or '.'; the value may be empty.
std::pair<std::string, std::string> parse_tag(const std::string& value, const std::string& flag);

}  // namespace collbench
