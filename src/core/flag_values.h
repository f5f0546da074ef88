// Values of command-line flags (numbers, lists, key=value tags), with the flag named in every
// error. Shared by every option parser.
#pragma once

#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace collbench {

// A decimal integer in [lowest, highest]; anything else (trailing text, overflow) is a UsageError.
long long parse_integer(const std::string& value, const std::string& flag, long long lowest, long long highest);

// A finite number in [lowest, highest]; NaN, inf, trailing text and overflow are UsageErrors.
double parse_real(const std::string& value, const std::string& flag,
                  double lowest = std::numeric_limits<double>::lowest(),
                  double highest = std::numeric_limits<double>::max());

// "a,b,,c" -> {"a", "b", "", "c"}; a trailing comma gives a trailing empty item so callers can reject it.
std::vector<std::string> split_list(const std::string& value);

// One flag as the command line spelled it: "--name=value", "--name value", "-xVALUE" or "-x VALUE".
struct FlagOccurrence {
  std::string shown;       // "--name" or "-x", for messages
  std::string long_name;   // empty for a short flag
  char short_name = 0;     // 0 for a long flag
  std::optional<std::string> inline_value;
};

// Reads args[i] as a flag; anything else (a stray word, "-5") is a UsageError.
FlagOccurrence read_flag(const std::string& arg);

// The flag's value: inline, or the next argument (advancing `i`). A flag that takes no value must
// have none. UsageError otherwise.
std::string flag_value(const FlagOccurrence& flag, bool takes_value, const std::vector<std::string>& args, std::size_t& i);

// "key=value" for --tag: the key is 1-64 letters, digits, '_', '-' or '.'; the value may be empty.
std::pair<std::string, std::string> parse_tag(const std::string& value, const std::string& flag);

}  // namespace collbench
