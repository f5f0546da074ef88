#include "summarize/fingerprint.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "summarize/input_error.h"

namespace collbench::summarize {
namespace {

namespace fs = std::filesystem;

// Versions that belong to the build under test, not to the machine: they differ between BASE and
// NEW by design.
bool is_build_version(const std::string& name) { return name == "collbench" || name == "compiler"; }

bool is_informational(const std::string& field) {
  return field == "date" || field == "hostname" || field == "command" || field == "note";
}

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  const auto last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

std::string joined(const std::set<std::string>& values) {
  std::string text;
  for (const auto& value : values) text += (text.empty() ? "" : " | ") + value;
  return text;
}

}  // namespace

Fingerprint parse_fingerprint_text(const std::string& text, const std::string& path) {
  Fingerprint fingerprint;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    const auto equals = line.find('=');
    if (equals == std::string::npos || equals == 0) {
      throw InputError(path + ":" + std::to_string(number) + ": expected name=value");
    }
    fingerprint[trim(line.substr(0, equals))].insert(trim(line.substr(equals + 1)));
  }
  return fingerprint;
}

Fingerprint fingerprint_of(const std::vector<LoadedReport>& reports, const std::vector<std::string>& inputs) {
  Fingerprint fingerprint;
  for (const auto& loaded : reports) {
    for (const auto& [name, value] : loaded.report.context.versions) {
      if (!is_build_version(name)) fingerprint["versions." + name].insert(value);
    }
    std::set<std::string> devices;
    for (const auto& rank : loaded.report.context.ranks) devices.insert(rank.device);
    if (!devices.empty()) fingerprint["devices"].insert(joined(devices));
  }
  for (const auto& input : inputs) {
    std::error_code error;
    if (!fs::is_directory(input, error)) continue;
    const std::string path = (fs::path(input) / kFingerprintFile).string();
    if (!fs::exists(path, error)) continue;
    std::ifstream file(path);
    std::stringstream text;
    text << file.rdbuf();
    if (!file) throw InputError(path + ": cannot read");
    for (const auto& [field, values] : parse_fingerprint_text(text.str(), path)) fingerprint[field].insert(values.begin(), values.end());
  }
  return fingerprint;
}

std::optional<std::string> fingerprint_difference(const Fingerprint& base, const Fingerprint& candidate) {
  for (const auto& [field, base_values] : base) {
    if (is_informational(field)) continue;
    const auto it = candidate.find(field);
    if (it == candidate.end() || it->second == base_values) continue;
    return "BASE and NEW ran on different machines (" + field + ": '" + joined(base_values) + "' vs '" + joined(it->second) +
           "'): verdicts are UNKNOWN; record a baseline on this machine";
  }
  return std::nullopt;
}

}  // namespace collbench::summarize
