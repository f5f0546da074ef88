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
    // The machine block of self-describing reports: what makes a machine another machine. Memory,
    // kernel and host names are left out (CI runners of one kind differ in them).
    const auto& machine = loaded.report.context.machine;
    for (const char* field : {"cpu_model", "cores", "threads", "driver", "cuda"}) {
      const auto it = machine.find(field);
      if (it != machine.end() && !it->is_null()) fingerprint[std::string("machine.") + field].insert(it->is_string() ? it->get<std::string>() : it->dump());
    }
    if (const auto gpus = machine.find("gpus"); gpus != machine.end() && gpus->is_array()) {
      std::set<std::string> models;
      for (const auto& gpu : *gpus) {
        if (gpu.is_object() && gpu.contains("model") && gpu["model"].is_string()) models.insert(gpu["model"].get<std::string>());
      }
      fingerprint["machine.gpus"].insert(models.empty() ? "none" : joined(models));
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

Fingerprint measurement_of(const std::vector<LoadedReport>& reports) {
  Fingerprint measurement;
  for (const auto& loaded : reports) {
    const auto& options = loaded.report.context.options;
    for (const char* field : {"iterations", "warmup_iterations", "cycles", "time_aggregation"}) {
      const auto it = options.find(field);
      if (it != options.end() && !it->is_null()) {
        measurement[std::string("options.") + field].insert(it->is_string() ? it->get<std::string>() : it->dump());
      } else if (std::string(field) == "time_aggregation") {
        measurement["options.time_aggregation"].insert("max");
      }
    }
  }
  return measurement;
}

std::optional<std::string> machine_change_within(const std::vector<LoadedReport>& reports) {
  if (reports.empty()) return std::nullopt;
  // The first field on which a report differs from the first one.
  const auto first_change = [&](auto describe, const char* what) -> std::optional<std::string> {
    const Fingerprint first = describe(reports.front());
    for (std::size_t i = 1; i < reports.size(); ++i) {
      const Fingerprint other = describe(reports[i]);
      for (const auto& [field, values] : first) {
        const auto it = other.find(field);
        if (it == other.end() || it->second == values) continue;
        return std::string("the runs ") + what + " (" + field + ": '" + joined(values) + "' in " + reports.front().path + " vs '" +
               joined(it->second) + "' in " + reports[i].path + "): no change is judged";
      }
    }
    return std::nullopt;
  };
  if (auto change = first_change([](const LoadedReport& loaded) { return fingerprint_of({loaded}, {}); }, "come from different machines")) {
    return change;
  }
  return first_change([](const LoadedReport& loaded) { return measurement_of({loaded}); }, "were measured differently");
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

std::optional<std::string> measurement_difference(const Fingerprint& base, const Fingerprint& candidate) {
  for (const auto& [field, base_values] : base) {
    const auto it = candidate.find(field);
    if (it == candidate.end() || it->second == base_values) continue;
    return "BASE and NEW were measured differently (" + field + ": '" + joined(base_values) + "' vs '" + joined(it->second) +
           "'): verdicts are UNKNOWN; measure both with the same -n, -w, -N and -a";
  }
  return std::nullopt;
}

}  // namespace collbench::summarize
