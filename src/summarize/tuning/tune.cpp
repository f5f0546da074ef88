#include "summarize/tuning/tune.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>

#include "core/printable.h"
#include "summarize/common/file_names.h"
#include "summarize/verdicts/fingerprint.h"
#include "summarize/common/input_error.h"
#include "summarize/tuning/tune_files.h"

namespace collbench::summarize {
namespace {

namespace fs = std::filesystem;

// Gloo's all_reduce algorithms besides its default (the names --algo takes).
const std::vector<std::string> kGlooAlgorithms = {"ring", "ring_chunked", "halving_doubling", "bcube"};

// NCCL_ALGO and NCCL_PROTO values (lower case, as NCCL compares them) and the example tuner's names.
const std::vector<std::pair<std::string, std::string>> kNcclAlgorithms = {
    {"ring", "ring"}, {"tree", "tree"}, {"collnetdirect", "collnet_direct"}, {"collnetchain", "collnet_chain"},
    {"nvls", "nvls"}, {"nvlstree", "nvls_tree"}, {"pat", "pat"}};
const std::vector<std::pair<std::string, std::string>> kNcclProtocols = {{"ll", "ll"}, {"ll128", "ll128"}, {"simple", "simple"}};

std::string tuner_name(const std::vector<std::pair<std::string, std::string>>& table, const std::string& value, const std::string& flag) {
  for (const auto& [nccl, tuner] : table) {
    if (lowercase(value) == nccl) return tuner;
  }
  std::string known;
  for (const auto& [nccl, tuner] : table) known += (known.empty() ? "" : ", ") + nccl;
  throw InputError("tune: " + flag + " " + value + " is not one of " + known);
}

std::vector<TuneCandidate> open_mpi_candidates(const std::vector<std::string>& values, const std::string& collective) {
  const std::vector<std::string>* names = open_mpi_algorithms(collective);
  if (!names) {
    throw InputError("tune: --mpi-algorithms covers all_reduce, broadcast, reduce, all_gather, alltoall, gather and reduce_scatter, not " +
                     collective + (collective == "scatter" ? " (Open MPI sizes a scatter by arguments MPI reads only at its root)" : ""));
  }
  std::vector<int> numbers;
  for (const auto& value : values) {
    if (value == "all") {
      for (int n = 1; n < static_cast<int>(names->size()); ++n) numbers.push_back(n);
      continue;
    }
    const auto by_name = std::find(names->begin() + 1, names->end(), lowercase(value));
    if (by_name != names->end()) {
      numbers.push_back(static_cast<int>(by_name - names->begin()));
    } else if (!value.empty() && value.find_first_not_of("0123456789") == std::string::npos && value.size() < 4 &&
               std::stoi(value) >= 1 && std::stoi(value) < static_cast<int>(names->size())) {
      numbers.push_back(std::stoi(value));
    } else {
      std::string known;
      for (std::size_t n = 1; n < names->size(); ++n) known += (known.empty() ? "" : ", ") + std::to_string(n) + " " + (*names)[n];
      throw InputError("tune: '" + value + "' is not an Open MPI 4.1 " + collective + " algorithm (" + known + ")");
    }
  }
  std::vector<TuneCandidate> out;
  std::set<int> seen;
  for (int number : numbers) {
    if (!seen.insert(number).second) continue;
    TuneCandidate candidate;
    candidate.name = (*names)[static_cast<std::size_t>(number)] + " (" + std::to_string(number) + ")";
    candidate.folder = "mpi-" + std::to_string(number);
    // Open MPI honours a forced algorithm only with dynamic rules on.
    candidate.env = {{"OMPI_MCA_coll_tuned_use_dynamic_rules", "1"},
                     {"OMPI_MCA_coll_tuned_" + open_mpi_parameter(collective) + "_algorithm", std::to_string(number)}};
    candidate.mpi_algorithm = number;
    out.push_back(candidate);
  }
  return out;
}

std::vector<TuneCandidate> gloo_candidates(const std::vector<std::string>& values, const std::string& collective) {
  if (collective != "all_reduce") throw InputError("tune: gloo has algorithm choices for all_reduce only, not " + collective);
  std::vector<std::string> names;
  for (const auto& value : values) {
    if (value == "all") {
      names.insert(names.end(), kGlooAlgorithms.begin(), kGlooAlgorithms.end());
    } else if (std::count(kGlooAlgorithms.begin(), kGlooAlgorithms.end(), lowercase(value))) {
      names.push_back(lowercase(value));
    } else {
      throw InputError("tune: --gloo-algorithms " + value + " is not one of ring, ring_chunked, halving_doubling, bcube (default is always a candidate)");
    }
  }
  std::vector<TuneCandidate> out;
  std::set<std::string> seen;
  for (const auto& name : names) {
    if (!seen.insert(name).second) continue;
    TuneCandidate candidate;
    candidate.name = name;
    candidate.folder = "gloo-" + name;
    candidate.arguments = {"--algo", name};
    candidate.gloo_algorithm = name;
    out.push_back(candidate);
  }
  return out;
}

std::vector<TuneCandidate> nccl_candidates(const TuneRequest& request) {
  if (request.nccl_algorithms.empty() || request.nccl_protocols.empty()) {
    throw InputError("tune: NCCL candidates need --nccl-algos and --nccl-protos (the tuner's file names both)");
  }
  std::vector<int> channels = {-1};
  if (!request.nccl_channels.empty()) channels.clear();
  for (const auto& value : request.nccl_channels) {
    if (value.empty() || value.size() > 3 || value.find_first_not_of("0123456789") != std::string::npos || std::stoi(value) < 1) {
      throw InputError("tune: --nccl-channels expects counts from 1 to 999, not '" + value + "'");
    }
    channels.push_back(std::stoi(value));
  }
  std::vector<TuneCandidate> out;
  for (const auto& algorithm : request.nccl_algorithms) {
    const std::string algorithm_name = tuner_name(kNcclAlgorithms, algorithm, "--nccl-algos");
    for (const auto& protocol : request.nccl_protocols) {
      const std::string protocol_name = tuner_name(kNcclProtocols, protocol, "--nccl-protos");
      for (int count : channels) {
        TuneCandidate candidate;
        candidate.name = algorithm + "/" + protocol + (count > 0 ? "/ch" + std::to_string(count) : "");
        candidate.folder = file_safe("nccl-" + algorithm + "-" + protocol + (count > 0 ? "-ch" + std::to_string(count) : ""));
        candidate.arguments = {"--algo", algorithm, "--proto", protocol};
        candidate.nccl_algorithm = algorithm_name;
        candidate.nccl_protocol = protocol_name;
        candidate.nccl_channels = count;
        out.push_back(candidate);
      }
    }
  }
  return out;
}

// The identity of a row without its size: tune decides one series (one placement, dtype, op).
SeriesKey series_of(const CompareLine& line) { return SeriesKey(line.key.begin(), line.key.end() - 1); }

// Provenance values as the file holds them: one line, not too long for the NCCL tuner's reader.
std::string provenance_value(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::replace(text.begin(), text.end(), '\r', ' ');
  return text.substr(0, 160);
}

// The fields of a set of runs that a tuning file is held to: the machine, the devices, the
// library versions (fingerprint.h), each as one provenance value.
std::map<std::string, std::string> machine_fields(const std::vector<LoadedReport>& runs) {
  std::map<std::string, std::string> fields;
  for (const auto& [field, values] : fingerprint_of(runs, {})) {
    fields[field] = provenance_value(joined(values, " | "));
  }
  return fields;
}

std::vector<LoadedReport> load_side(const std::string& folder) {
  std::error_code error;
  if (!fs::is_directory(folder, error)) return {};
  try {
    return load_reports({folder});
  } catch (const InputError&) {
    return {};  // no report yet
  }
}

// What a failed run said: the benchmark's own one-line error where there is one (mpirun's banner
// of dashes and its summary follow it in the log), else the log's last line with text.
std::string failure_line_of(const std::string& path) {
  std::ifstream in(path);
  std::string line, last, error;
  while (std::getline(in, line)) {
    if (line.find(": error: ") != std::string::npos && error.empty()) error = line;
    if (line.find_first_not_of(" \t\r-") != std::string::npos) last = line;
  }
  return (error.empty() ? last : error).substr(0, 300);
}

// Why a candidate's runs cannot stand for it, from its reports: Open MPI rejected the forced
// number (its rows say so), or the backend skipped every case.
std::string unusable_reason(const std::vector<LoadedReport>& runs) {
  for (const auto& loaded : runs) {
    for (const auto& row : loaded.report.rows) {
      const auto algorithm = key_field(row, "algorithm");
      if (algorithm && algorithm->find("rejected") != std::string::npos) return "the library did not run it: " + *algorithm;
    }
    if (loaded.report.rows.empty() && !loaded.report.skipped.empty()) return "skipped by the backend: " + loaded.report.skipped.front().reason;
  }
  return "";
}

// A channel count through the tuner plugin that deploys the file, as it will apply it: exactly k
// channels at every size of the range (NCCL_MIN/MAX_NCHANNELS=k would let NCCL trim small messages
// below k, which no tuner file can say). The candidate's CSV: one row over every size.
std::vector<std::pair<std::string, std::string>> channel_candidate_env(const TuneOptions& options, const TuneCandidate& candidate,
                                                                     const std::string& collective) {
  if (options.tuner_plugin.empty()) {
    throw InputError("tune: --nccl-channels candidates run through the tuner plugin that will apply the file: give --nccl-tuner-plugin LIB");
  }
  TuneDecision one_row;
  one_row.collective = collective;
  one_row.world_size = options.ab.world_size;
  one_row.candidates = {candidate};
  one_row.hosts = -1;  // any node count: the candidate's runs are the file's
  one_row.ranges = {{0, std::numeric_limits<std::int64_t>::max(), 0}};
  fs::create_directories(options.ab.out_dir);
  const std::string csv = fs::absolute(fs::path(options.ab.out_dir) / (candidate.folder + ".csv")).string();
  write_text_file(csv, tuning_file_text(one_row, TuneLibrary::kNccl));
  return {{"NCCL_TUNER_PLUGIN", options.tuner_plugin}, {"NCCL_TUNER_CONFIG_FILE", csv}};
}

AbOptions ab_for(const TuneOptions& options, const std::string& folder, std::vector<std::string> a, std::vector<std::string> b) {
  AbOptions ab = options.ab;
  ab.out_dir = (fs::path(options.ab.out_dir) / folder).string();
  ab.command_a = std::move(a);
  ab.command_b = std::move(b);
  ab.compare.paired = true;
  ab.compare.ignored_keys = {"algorithm"};
  return ab;
}

// The collective programs run in and out of place unless told: two rows a size, where a tuning
// file holds one choice. Refused before any run rather than after all of them.
std::string one_placement(const std::vector<std::string>& bench) {
  for (std::size_t i = 1; i < bench.size(); ++i) {
    const std::string value = bench[i] == "--placement" && i + 1 < bench.size() ? bench[i + 1]
                              : bench[i].rfind("--placement=", 0) == 0        ? bench[i].substr(12)
                                                                               : "";
    if (value == "out" || value == "in") return value;
  }
  throw InputError("tune: give the benchmark --placement out (or in): a tuning file holds one choice per size");
}

// Open MPI's dynamic rules size all_gather, alltoall and gather by their send arguments, which an
// in-place call leaves out (count 0): its rules would cut at 0 bytes, not at what was measured.
void require_sized_placement(TuneLibrary library, const std::string& collective, const std::string& placement) {
  if (library == TuneLibrary::kOpenMpi && placement == "in" && (collective == "all_gather" || collective == "alltoall" || collective == "gather")) {
    throw InputError("tune: Open MPI's rules size an in-place " + collective + " as 0 bytes (its send count is not given): tune it with --placement out");
  }
}

void check_common(const TuneOptions& options) {
  if (options.bench.empty()) throw InputError("tune: no benchmark after --");
  one_placement(options.bench);
  if (options.ab.out_dir.empty()) throw InputError("tune: --out DIR is required");
  if (options.ab.runs < 1 || options.ab.max_runs < options.ab.runs) throw InputError("tune: --runs >= 1 and --max-runs >= --runs");
}

std::string percent_text(double fraction) { return formatted("%.3g%%", 100 * fraction); }

nlohmann::json percent_cell(const std::optional<double>& value) { return value ? nlohmann::json(100 * *value) : nlohmann::json(nullptr); }

// The range of the file a size falls in, in words, or "default".
std::string setting_at(const TuningFile& file, std::uint64_t bytes) {
  for (const auto& range : file.ranges) {
    if (range.first_bytes <= bytes && bytes <= range.last_bytes) {
      return std::to_string(range.first_bytes) + "-" + std::to_string(range.last_bytes) + " " + range.setting;
    }
  }
  return "default";
}

bool has_size_outside(const TuningFile& file, const CompareResult& result) {
  return std::any_of(result.lines.begin(), result.lines.end(), [&](const CompareLine& line) { return !line.overall && setting_at(file, line.size) == "default"; });
}

// Open MPI 4.1 and 5.0 read only the classic form; 6.0 and later read the JSON form as meant and
// the classic one with other communicator sizes. A form the library here would misread is refused.
void require_readable_form(const TuningFile& file, const std::string& path, const std::map<std::string, std::string>& here) {
  const auto version = here.find("versions.mpi");
  if (version == here.end()) return;
  const OpenMpiRulesForm form = open_mpi_rules_form_of(version->second);
  if (form == file.form) return;
  throw InputError("tune --verify: " + path + " is in Open MPI's " + (file.form == OpenMpiRulesForm::kJson ? "JSON" : "classic") +
                   " form, which '" + version->second + "' does not read as meant: write it with --rules-format " +
                   (form == OpenMpiRulesForm::kJson ? "json" : "classic"));
}

Table verification_table(const TuningFile& file, const CompareResult& result) {
  Table table;
  table.title = "Verification: " + file.collective + " at " + std::to_string(file.world_size) + " ranks, the file against the default";
  table.columns = {{"bytes"}, {"setting"}, {"default_us", 2}, {"tuned_us", 2}, {"change_%", 1}, {"low_%", 1}, {"high_%", 1}, {"verdict"}};
  Table::Group group;
  for (const auto& line : result.lines) {
    if (line.overall) continue;
    group.rows.push_back({line.size, setting_at(file, line.size), line.base_value, line.new_value, 100 * line.change, percent_cell(line.change_low),
                          percent_cell(line.change_high), to_string(line.verdict)});
  }
  table.groups.push_back(std::move(group));
  return table;
}

// Per range: FASTER at every size, at k of n, or not faster, with the other verdicts counted.
std::vector<std::string> range_notes(const TuningFile& file, const CompareResult& result) {
  std::map<std::string, std::map<std::string, int>> verdicts_by_range;
  for (const auto& line : result.lines) {
    if (!line.overall) ++verdicts_by_range[setting_at(file, line.size)][to_string(line.verdict)];
  }
  std::vector<std::string> notes;
  for (const auto& [setting, counts] : verdicts_by_range) {
    if (setting == "default") continue;
    int total = 0;
    for (const auto& [verdict, count] : counts) total += count;
    const int faster = counts.count("FASTER") ? counts.at("FASTER") : 0;
    std::string line = "range " + setting + ": " +
                       (faster == total ? "FASTER at every size" : faster == 0 ? "not faster" : "FASTER at " + std::to_string(faster) + " of " + std::to_string(total) + " sizes");
    for (const auto& [verdict, count] : counts) {
      if (verdict != "FASTER") line += "; " + verdict + " at " + std::to_string(count);
    }
    notes.push_back(line);
  }
  return notes;
}


}  // namespace

std::string to_string(TuneLibrary library) {
  switch (library) {
    case TuneLibrary::kOpenMpi: return "openmpi";
    case TuneLibrary::kGloo: return "gloo";
    case TuneLibrary::kNccl: return "nccl";
  }
  return "?";
}

std::string collective_of_program(const std::string& program) {
  std::string name = fs::path(program).filename().string();
  const std::string suffix = "_perf";
  if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) name.resize(name.size() - suffix.size());
  return name;
}

std::vector<TuneCandidate> expand_candidates(const TuneRequest& request, const std::string& collective, TuneLibrary& library) {
  const bool mpi = !request.mpi_algorithms.empty(), gloo = !request.gloo_algorithms.empty();
  const bool nccl = !request.nccl_algorithms.empty() || !request.nccl_protocols.empty() || !request.nccl_channels.empty();
  if (mpi + gloo + nccl == 0) {
    throw InputError("tune: no candidates: give --mpi-algorithms, --gloo-algorithms, or --nccl-algos with --nccl-protos");
  }
  if (mpi + gloo + nccl > 1) throw InputError("tune: candidates of one library at a time (its file is one library's)");
  std::vector<TuneCandidate> candidates;
  if (mpi) {
    library = TuneLibrary::kOpenMpi;
    candidates = open_mpi_candidates(request.mpi_algorithms, collective);
  } else if (gloo) {
    library = TuneLibrary::kGloo;
    candidates = gloo_candidates(request.gloo_algorithms, collective);
  } else {
    library = TuneLibrary::kNccl;
    candidates = nccl_candidates(request);
  }
  if (candidates.empty()) throw InputError("tune: the candidate set is empty");
  return candidates;
}

std::vector<std::string> candidate_command(const std::vector<std::string>& bench, const TuneCandidate* candidate) {
  std::vector<std::string> command;
  // Through env(1), so the setting reaches every rank under any launcher without its own flags.
  if (candidate && !candidate->env.empty()) {
    command.push_back("env");
    for (const auto& [name, value] : candidate->env) command.push_back(name + "=" + value);
  }
  command.insert(command.end(), bench.begin(), bench.end());
  if (candidate) command.insert(command.end(), candidate->arguments.begin(), candidate->arguments.end());
  return command;
}

namespace {

// Each candidate's comparison with the default, per size: the first phase of a decision.
struct CandidateLines {
  std::vector<std::map<std::uint64_t, CompareLine>> by_candidate;  // per candidate, its line at each size
  std::set<std::uint64_t> sizes;
  std::size_t fewest_pairs = SIZE_MAX;
  const std::vector<LoadedReport>* first_defaults = nullptr;  // the default's runs of the first candidate that ran
};

CandidateLines compare_candidates(const std::vector<CandidateRuns>& runs, const CompareOptions& options, TuneDecision& decision) {
  CompareOptions compare = options;
  compare.paired = true;  // each pair ran back to back (ab); Holm over the sizes unless --correction none
  if (std::find(compare.ignored_keys.begin(), compare.ignored_keys.end(), "algorithm") == compare.ignored_keys.end()) {
    compare.ignored_keys.push_back("algorithm");
  }
  CandidateLines out;
  out.by_candidate.resize(runs.size());
  std::set<SeriesKey> series;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    decision.candidates.push_back(runs[i].candidate);
    if (!runs[i].skipped.empty()) {
      decision.skipped.push_back(runs[i].candidate.name + ": " + runs[i].skipped);
      continue;
    }
    if (runs[i].default_runs.empty() || runs[i].candidate_runs.empty()) {
      decision.skipped.push_back(runs[i].candidate.name + ": no complete run pair");
      continue;
    }
    if (!out.first_defaults) out.first_defaults = &runs[i].default_runs;
    const CompareResult result = compare_reports(runs[i].default_runs, runs[i].candidate_runs, compare);
    for (const auto& line : result.lines) {
      if (line.overall) continue;
      series.insert(series_of(line));
      out.sizes.insert(line.size);
      out.by_candidate[i][line.size] = line;
      out.fewest_pairs = std::min(out.fewest_pairs, std::min(line.base_runs, line.new_runs));
    }
  }
  if (series.size() > 1) {
    throw InputError("tune: the runs hold " + std::to_string(series.size()) +
                     " series (placements, dtypes or ops); a tuning file holds one choice per size: run one (e.g. --placement out)");
  }
  if (!out.first_defaults) throw InputError("tune: no candidate ran (" + joined(decision.skipped, "; ") + ")");
  if (out.sizes.empty()) throw InputError("tune: no candidate has a size in common with the default");
  return out;
}

// One size's choice: a FASTER candidate, the previous size's where it is one of them.
SizeChoice choose_at_size(std::uint64_t bytes, const CandidateLines& lines, std::optional<std::size_t> previous) {
  const auto& by_candidate = lines.by_candidate;
  SizeChoice choice;
  choice.bytes = bytes;
  std::vector<std::size_t> winners;
  for (std::size_t i = 0; i < by_candidate.size(); ++i) {
    const auto it = by_candidate[i].find(bytes);
    if (it == by_candidate[i].end()) continue;
    if (!choice.best || it->second.change < by_candidate[*choice.best].at(bytes).change) choice.best = i;
    if (it->second.verdict == Verdict::kFaster) winners.push_back(i);
  }
  if (!winners.empty()) {
    // The neighbour's choice stays where it also wins: candidates were never compared with each
    // other, so a better estimate alone is no evidence for a split.
    if (previous && std::count(winners.begin(), winners.end(), *previous)) {
      choice.chosen = previous;
    } else {
      choice.chosen = *std::min_element(winners.begin(), winners.end(), [&](std::size_t a, std::size_t b) {
        return by_candidate[a].at(bytes).change < by_candidate[b].at(bytes).change;
      });
    }
  }
  if (!choice.best) return choice;
  const CompareLine& line = by_candidate[choice.chosen ? *choice.chosen : *choice.best].at(bytes);
  choice.default_us = line.base_value;
  choice.best_us = line.new_value;
  choice.change = line.change;
  choice.change_low = line.change_low;
  choice.change_high = line.change_high;
  choice.best_verdict = to_string(line.verdict);
  if (choice.chosen) {
    choice.why = winners.size() > 1 ? std::to_string(winners.size()) + " candidates FASTER; " +
                                          (choice.chosen == previous ? "the neighbour's choice kept" : "the best estimate")
                                    : "FASTER";
  } else {
    choice.why = line.verdict == Verdict::kUnknown ? "no candidate FASTER (" + line.why + ")" : "no candidate FASTER";
  }
  return choice;
}

// Neighbouring sizes with one choice (the default included) become one range.
std::vector<TuneRange> merged_ranges(const std::vector<SizeChoice>& sizes) {
  std::vector<TuneRange> ranges;
  for (const auto& choice : sizes) {
    if (!ranges.empty() && ranges.back().chosen == choice.chosen) {
      ranges.back().last_bytes = choice.bytes;
    } else {
      ranges.push_back({choice.bytes, choice.bytes, choice.chosen});
    }
  }
  return ranges;
}

// What the file says of where it came from: the machine, the runs and the rule.
std::map<std::string, std::string> decision_provenance(const TuneDecision& decision, const CandidateLines& lines, const CompareOptions& options) {
  std::map<std::string, std::string> provenance = machine_fields(*lines.first_defaults);
  provenance["hosts"] = std::to_string(decision.hosts);
  provenance["runs"] = std::to_string(lines.fewest_pairs) + " or more run pairs a candidate (default and candidate interleaved)";
  std::string candidates;
  for (const auto& candidate : decision.candidates) candidates += (candidates.empty() ? "" : ", ") + candidate.name;
  provenance["candidates"] = provenance_value(candidates);
  const std::string alpha = formatted("%g", options.alpha);
  provenance["rule"] = std::string("FASTER by ab's paired signed-rank test, ") + (options.holm ? "Holm over the sizes" : "no correction over the sizes") +
                       ", min effect " + percent_text(options.min_effect) + ", alpha " + alpha;
  provenance["measured"] = lines.first_defaults->front().report.context.start_time;
  return provenance;
}

}  // namespace

TuneDecision decide_tuning(const std::vector<CandidateRuns>& runs, const CompareOptions& options) {
  TuneDecision decision;
  decision.min_effect = options.min_effect;
  decision.alpha = options.alpha;
  const CandidateLines lines = compare_candidates(runs, options, decision);
  const auto& first_report = lines.first_defaults->front().report;
  decision.collective = first_report.benchmark;
  decision.world_size = first_report.context.world_size;
  decision.hosts = std::max<int>(1, static_cast<int>(first_report.context.hosts.size()));
  std::optional<std::size_t> previous;
  for (std::uint64_t bytes : lines.sizes) {
    decision.sizes.push_back(choose_at_size(bytes, lines, previous));
    previous = decision.sizes.back().chosen;
  }
  decision.ranges = merged_ranges(decision.sizes);
  decision.provenance = decision_provenance(decision, lines, options);
  return decision;
}

Document decision_document(const TuneDecision& decision) {
  Document document;
  Table sizes;
  sizes.title = "Tuning decision: " + decision.collective + " at " + std::to_string(decision.world_size) + " ranks";
  sizes.columns = {{"bytes"}, {"default_us", 2}, {"best"}, {"best_us", 2}, {"change_%", 1}, {"low_%", 1}, {"high_%", 1}, {"verdict"},
                   {"choice"}, {"why"}};
  Table::Group group;
  for (const auto& choice : decision.sizes) {
    const bool any = choice.best.has_value();
    group.rows.push_back({choice.bytes, any ? nlohmann::json(choice.default_us) : nlohmann::json(nullptr),
                          any ? nlohmann::json(decision.candidates[choice.chosen ? *choice.chosen : *choice.best].name) : nlohmann::json(nullptr),
                          any ? nlohmann::json(choice.best_us) : nlohmann::json(nullptr), any ? nlohmann::json(100 * choice.change) : nlohmann::json(nullptr),
                          percent_cell(choice.change_low), percent_cell(choice.change_high), choice.best_verdict,
                          choice.chosen ? decision.candidates[*choice.chosen].name : "default", choice.why});
  }
  sizes.groups.push_back(std::move(group));
  document.tables.push_back(std::move(sizes));
  Table ranges;
  ranges.title = "Ranges";
  ranges.columns = {{"first_bytes"}, {"last_bytes"}, {"setting"}};
  Table::Group range_rows;
  for (const auto& range : decision.ranges) {
    range_rows.rows.push_back({range.first_bytes, range.last_bytes, range.chosen ? decision.candidates[*range.chosen].name : "default"});
  }
  ranges.groups.push_back(std::move(range_rows));
  document.tables.push_back(std::move(ranges));
  const auto rule = decision.provenance.find("rule");
  document.notes.push_back("a candidate replaces the default at a size only when ab's verdict is FASTER: the paired signed-rank interval "
                           "below 0 and the change at least " + percent_text(decision.min_effect) +
                           (rule != decision.provenance.end() ? " (" + rule->second + ")" : std::string()) +
                           "; best/best_us/change: the chosen candidate, else the best estimate");
  document.notes.push_back("each candidate is tested against the default on its own (Holm over sizes, not over candidates): with many "
                           "candidates a chance win is more likely, which is why collbench tune --verify measures the file afresh");
  for (const auto& skipped : decision.skipped) document.notes.push_back("skipped " + skipped);
  nlohmann::json chosen = nlohmann::json::array();
  for (const auto& range : decision.ranges) {
    chosen.push_back({{"first_bytes", range.first_bytes}, {"last_bytes", range.last_bytes},
                      {"setting", range.chosen ? decision.candidates[*range.chosen].name : "default"}});
  }
  document.extra["ranges"] = chosen;
  document.extra["skipped"] = decision.skipped;
  return document;
}

TuneOutcome run_tune(const TuneOptions& options, std::FILE* progress) {
  check_common(options);
  TuneLibrary library = TuneLibrary::kOpenMpi;
  const std::string collective = collective_of_program(options.bench.front());
  const auto candidates = expand_candidates(options.request, collective, library);
  require_sized_placement(library, collective, one_placement(options.bench));
  const auto default_command = candidate_command(options.bench, nullptr);
  std::vector<CandidateRuns> runs;
  for (const auto& candidate : candidates) {
    CandidateRuns entry{candidate, {}, {}, ""};
    TuneCandidate runnable = candidate;
    if (candidate.nccl_channels > 0) runnable.env = channel_candidate_env(options, candidate, collective);
    const AbOptions ab = ab_for(options, candidate.folder, default_command, candidate_command(options.bench, &runnable));
    print_line(progress, "[tune] " + candidate.name + " against the default, in " + ab.out_dir);
    try {
      run_ab(ab, progress);
    } catch (const RunFailure& failure) {
      if (failure.interrupted) throw std::runtime_error(std::string(failure.what()) + "; run the same tune again to resume");
      const std::string said = failure_line_of(failure.log_path);
      // The default failing with exit 2 is the benchmark's bad usage: the user's to fix.
      if (failure.side_a && failure.exit_code == 2) throw InputError("tune: the benchmark refused its arguments: " + said);
      if (failure.side_a) throw;
      entry.skipped = "its run failed (" + said + ")";
    } catch (const InputError&) {
      // Every case skipped by the backend leaves no row to compare: a skipped candidate, not an error.
      const std::string reason = unusable_reason(load_side(ab.out_dir + "/B"));
      if (reason.empty()) throw;
      entry.skipped = reason;
    }
    entry.default_runs = load_side(ab.out_dir + "/A");
    entry.candidate_runs = load_side(ab.out_dir + "/B");
    if (entry.skipped.empty()) entry.skipped = unusable_reason(entry.candidate_runs);
    runs.push_back(std::move(entry));
  }
  TuneDecision decision = decide_tuning(runs, options.ab.compare);
  decision.provenance["runs"] += "; reports in " + provenance_value(fs::path(options.ab.out_dir).filename().string()) + "/";
  TuneOutcome outcome;
  outcome.document = decision_document(decision);
  const OpenMpiRulesForm form = resolved_rules_form(decision, options.rules_form);
  const std::string file = (fs::path(options.ab.out_dir) / tuning_file_name(library, form)).string();
  write_text_file(file, tuning_file_text(decision, library, form));
  write_text_file(options.ab.out_dir + "/decision.md", render(outcome.document, Format::kMarkdown));
  outcome.document.notes.push_back("wrote " + file + " and " + options.ab.out_dir + "/decision.md; check it with collbench tune --verify " + file);
  outcome.document.extra["file"] = file;
  return outcome;
}

TuneOutcome run_verify(const TuneOptions& options, std::FILE* progress) {
  check_common(options);
  const TuneRequest& request = options.request;
  if (!request.mpi_algorithms.empty() || !request.gloo_algorithms.empty() || !request.nccl_algorithms.empty() ||
      !request.nccl_protocols.empty() || !request.nccl_channels.empty()) {
    throw InputError("tune --verify: the file names the setting; give no candidates with it");
  }
  const TuningFile file = read_tuning_file(options.verify_file);
  const std::string collective = collective_of_program(options.bench.front());
  if (collective != file.collective) {
    throw InputError("tune --verify: " + options.verify_file + " is for " + file.collective + " (collective), not " + collective);
  }
  if (options.ab.world_size != file.world_size) {
    throw InputError("tune --verify: " + options.verify_file + " is for " + std::to_string(file.world_size) + " ranks (world_size), not " +
                     std::to_string(options.ab.world_size));
  }
  const std::string path = fs::absolute(options.verify_file).string();
  TuneCandidate tuned;
  tuned.name = "the file";
  switch (file.library) {
    case TuneLibrary::kOpenMpi:
      tuned.env = {{"OMPI_MCA_coll_tuned_use_dynamic_rules", "1"}, {"OMPI_MCA_coll_tuned_dynamic_rules_filename", path}};
      break;
    case TuneLibrary::kNccl:
      if (options.tuner_plugin.empty()) {
        throw InputError("tune --verify: an NCCL file needs a tuner plugin: --nccl-tuner-plugin LIB (collbench's: build/lib/libnccl-tuner-collbench.so)");
      }
      tuned.env = {{"NCCL_TUNER_PLUGIN", options.tuner_plugin}, {"NCCL_TUNER_CONFIG_FILE", path}};
      break;
    case TuneLibrary::kGloo: tuned.arguments = {"--algo-file", path}; break;
  }
  AbOptions ab = ab_for(options, "verify", candidate_command(options.bench, nullptr), candidate_command(options.bench, &tuned));
  // One pair first: the machine and the library versions are known only from a report, and a
  // file of another machine is refused before the rest is spent on it. The full ab resumes from it.
  AbOptions first = ab;
  first.runs = first.max_runs = 1;
  run_ab(first, progress);
  const auto here = machine_fields(load_side(ab.out_dir + "/A"));
  for (const auto& [field, value] : file.provenance) {
    const bool held = field.rfind("machine.", 0) == 0 || field.rfind("versions.", 0) == 0 || field == "devices";
    const auto it = here.find(field);
    if (!held || it == here.end() || it->second == value) continue;
    throw InputError("tune --verify: " + options.verify_file + " was made elsewhere: " + field + " is '" + value + "' in the file, '" + it->second +
                     "' here");
  }
  if (file.library == TuneLibrary::kOpenMpi) require_readable_form(file, options.verify_file, here);
  const AbOutcome result = run_ab(ab, progress);
  TuneOutcome outcome;
  outcome.document.tables.push_back(verification_table(file, result.result));
  outcome.document.notes = range_notes(file, result.result);
  if (file.ranges.empty()) outcome.document.notes.push_back("the file sets no range: every size keeps the library's default");
  for (const auto& note : result.document.notes) outcome.document.notes.push_back(note);
  outcome.document.extra = result.document.extra;
  bool slower = result.result.any_slower();
  // Nothing else may change: the sizes outside every range ran above (rows "default"), and one
  // communicator size below N runs here, where the file must leave the library's own choice.
  if (file.world_size > 1) {
    AbOptions below = ab;
    below.world_size = file.world_size - 1;
    below.out_dir = (fs::path(options.ab.out_dir) / "verify-below").string();
    const AbOutcome at_below = run_ab(below, progress);
    Table table = verification_table(file, at_below.result);
    table.title = "Below the file's world size: " + std::to_string(below.world_size) + " ranks, where it must change nothing";
    outcome.document.tables.push_back(std::move(table));
    std::map<std::string, int> counts;
    for (const auto& line : at_below.result.lines) {
      if (!line.overall) ++counts[to_string(line.verdict)];
    }
    std::string said = "at " + std::to_string(below.world_size) + " ranks (below the file's " + std::to_string(file.world_size) + "):";
    for (const auto& [verdict, count] : counts) said += " " + verdict + " at " + std::to_string(count);
    if (at_below.result.any_slower()) said += "; SLOWER where the file should change nothing: it fails";
    outcome.document.notes.push_back(said);
    slower = slower || at_below.result.any_slower();
  }
  if (!has_size_outside(file, result.result)) {
    outcome.document.notes.push_back("no size outside the file's ranges ran: give the benchmark one below and one above them to see that nothing else changed");
  }
  outcome.exit_code = slower ? 1 : 0;
  return outcome;
}


}  // namespace collbench::summarize
