// Numbers from command-line text, with the flag named in the error. Shared by every option parser.
#pragma once

#include <limits>
#include <string>
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

}  // namespace collbench
