#include "core/flag_values.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "core/error.h"

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

double parse_real(const std::string& value, const std::string& flag, double lowest, double highest) {
  errno = 0;
  char* end = nullptr;
  const double parsed = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || !std::isfinite(parsed) || errno == ERANGE) {
    throw UsageError(flag + " expects a number, got '" + value + "'");
  }
  if (parsed < lowest || parsed > highest) {
    std::ostringstream text;
    text << flag << " must be between " << lowest << " and " << highest << ", got '" << value << "'";
    throw UsageError(text.str());
  }
  return parsed;
}

std::vector<std::string> split_list(const std::string& value) {
  std::vector<std::string> items;
  std::stringstream stream(value);
  std::string item;
  while (std::getline(stream, item, ',')) items.push_back(item);
  if (!value.empty() && value.back() == ',') items.push_back("");
  return items;
}

FlagOccurrence read_flag(const std::string& arg) {
  FlagOccurrence flag;
  if (arg.rfind("--", 0) == 0 && arg.size() > 2) {
    const auto equals = arg.find('=');
    flag.long_name = arg.substr(2, equals == std::string::npos ? std::string::npos : equals - 2);
    flag.shown = "--" + flag.long_name;
    if (equals != std::string::npos) flag.inline_value = arg.substr(equals + 1);
  } else if (arg.size() >= 2 && arg[0] == '-' && !std::isdigit(static_cast<unsigned char>(arg[1]))) {
    flag.short_name = arg[1];
    flag.shown = arg.substr(0, 2);
    if (arg.size() > 2) flag.inline_value = arg.substr(2);
  } else {
    throw UsageError("unexpected argument '" + arg + "' (see --help)");
  }
  return flag;
}

std::string flag_value(const FlagOccurrence& flag, bool takes_value, const std::vector<std::string>& args, std::size_t& i) {
  if (!takes_value) {
    if (flag.inline_value) throw UsageError(flag.shown + " takes no value, got '" + *flag.inline_value + "'");
    return "";
  }
  if (flag.inline_value) return *flag.inline_value;
  if (i + 1 >= args.size()) throw UsageError(flag.shown + " expects a value (see --help)");
  return args[++i];
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
