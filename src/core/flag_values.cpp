#include "core/flag_values.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "core/error.h"
#include "core/printable.h"
#include "core/sizes.h"

namespace collbench {

long long parse_integer(const std::string& value, const std::string& flag, long long lowest, long long highest) {
  errno = 0;
  char* end = nullptr;
  const long long parsed = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0') throw UsageError(flag + " expects an integer, got '" + value + "'");
  if (errno == ERANGE || parsed < lowest || parsed > highest) {
    throw UsageError(flag + " must be between " + std::to_string(lowest) + " and " + std::to_string(highest) +
                     ", got '" + value + "'");
  }
  return parsed;
}

bool parse_yes_no(const std::string& value, const std::string& flag) {
  if (value == "yes") return true;
  if (value == "no") return false;
  throw UsageError("unknown value '" + value + "' for " + flag + " (use yes or no)");
}

double parse_real(const std::string& value, const std::string& flag, double lowest, double highest) {
  errno = 0;
  char* end = nullptr;
  const double parsed = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || !std::isfinite(parsed) || errno == ERANGE) {
    throw UsageError(flag + " expects a number, got '" + value + "'");
  }
  if (parsed < lowest || parsed > highest) {
    throw UsageError(flag + formatted(" must be between %.15g and %.15g, got '", lowest, highest) + value + "'");
  }
  return parsed;
}

std::vector<std::string> split_list(const std::string& value, char separator) {
  std::vector<std::string> items;
  std::stringstream stream(value);
  std::string item;
  while (std::getline(stream, item, separator)) items.push_back(item);
  if (!value.empty() && value.back() == separator) items.push_back("");
  return items;
}

std::vector<std::uint64_t> parse_size_list(const std::string& value, const std::string& flag) {
  std::vector<std::uint64_t> sizes;
  for (const auto& item : split_list(value)) {
    const auto size = parse_size(item, flag);
    if (size == 0) throw UsageError(flag + " sizes must be at least 1");
    sizes.push_back(size);
  }
  if (sizes.empty()) throw UsageError(flag + " expects a comma-separated list of sizes");
  return sizes;
}

std::pair<std::string, std::string> parse_tag(const std::string& value, const std::string& flag) {
  const auto equals = value.find('=');
  const std::string key = equals == std::string::npos ? value : value.substr(0, equals);
  bool valid = equals != std::string::npos && !key.empty() && key.size() <= 64;
  for (char c : key) valid &= std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  if (!valid) {
    throw UsageError(flag + " expects key=value with a key of letters, digits, '_', '-' or '.', got '" + value + "'");
  }
  return {key, value.substr(equals + 1)};
}

}  // namespace collbench
