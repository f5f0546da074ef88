// The machine a set of runs was measured on, so that a baseline is only held against runs of the
// same kind of machine. Two sources: what every report's context says (library versions, the
// ranks' devices) and, for a folder, a small `fingerprint.txt` beside the reports (name=value lines
// written by scripts/ci-perf.sh: cpu_model, cores, mpi, nccl, driver, ...).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "summarize/common/load.h"

namespace collbench::summarize {

// Each field with every value seen on one side (a side of several runs may see several).
using Fingerprint = std::map<std::string, std::set<std::string>>;

inline constexpr const char* kFingerprintFile = "fingerprint.txt";

// `inputs` are the paths the reports were loaded from; a folder among them contributes its
// fingerprint.txt. Throws InputError for a fingerprint file that cannot be read or parsed.
Fingerprint fingerprint_of(const std::vector<LoadedReport>& reports, const std::vector<std::string>& inputs);

// One line naming the first field both sides have and disagree on, or nullopt when they agree on
// every shared field. Fields only one side has are not held against it. Informational fields
// (date, hostname, command, note) never count.
std::optional<std::string> fingerprint_difference(const Fingerprint& base, const Fingerprint& candidate);

// For history: one line naming the first machine field (context.machine, library versions) or
// measurement field (below) on which a report differs from the first one, or nullopt. Reports
// without the fields are not held against each other.
std::optional<std::string> machine_change_within(const std::vector<LoadedReport>& reports);

// How the runs were measured: the loop settings that shape a run's figure, from context.options
// (iterations, warmup_iterations, cycles, time_aggregation; a report from before time_aggregation
// was recorded took the per-iteration maximum). The p10 of 40 iterations in one block is not the
// same estimate as that of 8 cycles of 500, so a baseline measured otherwise is not judged.
Fingerprint measurement_of(const std::vector<LoadedReport>& reports);

// One line naming the first measurement field both sides have and disagree on, or nullopt.
std::optional<std::string> measurement_difference(const Fingerprint& base, const Fingerprint& candidate);

// The fingerprint file's text: name=value per line, '#' comments. Throws InputError naming the line.
Fingerprint parse_fingerprint_text(const std::string& text, const std::string& path);

}  // namespace collbench::summarize
