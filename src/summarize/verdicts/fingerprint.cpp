#include "summarize/verdicts/fingerprint.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

#include "core/printable.h"
#include "summarize/common/input_error.h"
#include "summarize/verdicts/recordings.h"

namespace collbench::summarize {
namespace {

namespace fs = std::filesystem;

// Versions that belong to the build under test, not to the machine: they differ between BASE and
// NEW by design.
// The code and its compiler, not the machine: a report from another commit is still judged.
bool is_build_version(const std::string& name) {
  return name == "collbench" || name == "collbench_commit" || name == "collbench_tree" || name == "compiler";
}

bool is_informational(const std::string& field) {
  return field == "date" || field == "hostname" || field == "command" || field == "note";
}

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  const auto last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

// The first field both sides have and disagree on, as "field: 'a'<where_a> vs 'b'<where_b>", or
// nullopt. Fields only one side has, and informational ones, never count.
std::optional<std::string> first_disagreement(const Fingerprint& a, const Fingerprint& b, const std::string& where_a = "",
                                              const std::string& where_b = "") {
  for (const auto& [field, values] : a) {
    if (is_informational(field)) continue;
    const auto it = b.find(field);
    if (it == b.end() || it->second == values) continue;
    return field + ": '" + joined(values, " | ") + "'" + where_a + " vs '" + joined(it->second, " | ") + "'" + where_b;
  }
  return std::nullopt;
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
    // Every host's machine (reports from several nodes): one host swapped for another kind is
    // another machine, even when rank 0's stayed. Host names and memory are left out, as above.
    if (const auto hosts = machine.find("per_host"); hosts != machine.end() && hosts->is_array()) {
      std::set<std::string> kinds;  // distinct kinds: a run on more nodes of one kind is the same machine
      for (const auto& host : *hosts) {
        if (!host.is_object()) continue;
        std::string kind;
        for (const char* field : {"cpu_model", "cores", "threads"}) {
          const auto it = host.find(field);
          kind += std::string(kind.empty() ? "" : " / ") + (it == host.end() || it->is_null() ? "?" : it->is_string() ? it->get<std::string>() : it->dump());
        }
        kinds.insert(kind);
      }
      fingerprint["machine.per_host"].insert(joined(kinds, " | "));
    }
    if (const auto gpus = machine.find("gpus"); gpus != machine.end() && gpus->is_array()) {
      std::set<std::string> models;
      for (const auto& gpu : *gpus) {
        if (gpu.is_object() && gpu.contains("model") && gpu["model"].is_string()) models.insert(gpu["model"].get<std::string>());
      }
      fingerprint["machine.gpus"].insert(models.empty() ? "none" : joined(models, " | "));
    }
    std::set<std::string> devices;
    for (const auto& rank : loaded.report.context.ranks) devices.insert(rank.device);
    if (!devices.empty()) fingerprint["devices"].insert(joined(devices, " | "));
  }
  for (const auto& input : inputs) {
    std::error_code error;
    if (!fs::is_directory(input, error)) continue;
    // The folder's own, and each recording's of a stored baseline (recordings.h): a recording made
    // on another machine makes the baseline another machine's.
    std::vector<fs::path> paths{fs::path(input) / kFingerprintFile};
    std::vector<fs::path> recordings;
    for (const auto& entry : fs::directory_iterator(input, error)) {
      const std::string name = entry.path().filename().string();
      if (entry.is_directory(error) && name.rfind(kRecordingPrefix, 0) == 0) recordings.push_back(entry.path() / kFingerprintFile);
    }
    std::sort(recordings.begin(), recordings.end());  // the first disagreement named does not depend on directory order
    paths.insert(paths.end(), recordings.begin(), recordings.end());
    for (const auto& path : paths) {
      if (!fs::exists(path, error)) continue;
      // A fingerprint is a few name=value lines.
      const std::string text = read_input(path.string(), {"fingerprint file", 1u << 20, 64u << 10});
      for (const auto& [field, values] : parse_fingerprint_text(text, path.string())) fingerprint[field].insert(values.begin(), values.end());
    }
  }
  return fingerprint;
}

Fingerprint measurement_of(const std::vector<LoadedReport>& reports) {
  const auto text = [](const nlohmann::json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); };
  Fingerprint measurement;
  for (const auto& loaded : reports) {
    const auto& options = loaded.report.context.options;
    for (const char* field : {"iterations", "warmup_iterations", "cycles"}) {
      const auto it = options.find(field);
      if (it != options.end() && !it->is_null()) measurement[std::string("options.") + field].insert(text(*it));
    }
    // Reports from before time_aggregation was recorded took the per-iteration maximum.
    const auto aggregation = options.find("time_aggregation");
    measurement["options.time_aggregation"].insert(aggregation != options.end() && !aggregation->is_null() ? text(*aggregation) : "max");
  }
  return measurement;
}

std::optional<std::string> machine_change_within(const std::vector<LoadedReport>& reports) {
  if (reports.empty()) return std::nullopt;
  // The first field on which a report differs from the first one.
  const auto first_change = [&](auto describe, const char* what) -> std::optional<std::string> {
    const Fingerprint first = describe(reports.front());
    for (std::size_t i = 1; i < reports.size(); ++i) {
      if (const auto difference = first_disagreement(first, describe(reports[i]), " in " + reports.front().path, " in " + reports[i].path)) {
        return std::string("the runs ") + what + " (" + *difference + "): no change is judged";
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
  const auto difference = first_disagreement(base, candidate);
  if (!difference) return std::nullopt;
  return "BASE and NEW ran on different machines (" + *difference + "): verdicts are UNKNOWN; record a baseline on this machine";
}

std::optional<std::string> measurement_difference(const Fingerprint& base, const Fingerprint& candidate) {
  const auto difference = first_disagreement(base, candidate);
  if (!difference) return std::nullopt;
  return "BASE and NEW were measured differently (" + *difference + "): verdicts are UNKNOWN; measure both with the same -n, -w, -N and -a";
}

}  // namespace collbench::summarize
