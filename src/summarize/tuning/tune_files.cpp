#include "summarize/tuning/tune_files.h"

#include <algorithm>
#include <array>
#include <sstream>

#include <nlohmann/json.hpp>
#include <optional>

#include "core/algorithm_ranges.h"
#include "core/error.h"
#include "core/input_file.h"
#include "core/nccl_tuner_rows.h"
#include "core/printable.h"
#include "summarize/common/input_error.h"

namespace collbench::summarize {
namespace {

struct OpenMpiCollective {
  const char* ours;
  int id;                 // COLLTYPE in ompi/mca/coll/base/coll_base_functions.h: the classic file's collective number
  const char* json_name;  // the JSON form's key (mca_coll_base_name_to_colltype on 6.0 and later)
  const char* parameter;  // coll_tuned_<parameter>_algorithm, the forced runs' MCA parameter
  std::vector<std::string> algorithms;
};

// The collectives whose message size in Open MPI's dynamic decision (coll_tuned_decision_dynamic.c,
// the same in 4.1.x, 5.0.x and main) is collbench's row bytes: the datatype size times the count
// (all_reduce, broadcast, reduce), times the ranks for all_gather, alltoall and gather (the whole
// buffer, as collbench's rows count it), and reduce_scatter's MPI_Reduce_scatter_block as rcount x
// ranks. Scatter is not here: its size is taken from the send arguments at every rank, which MPI
// reads only at the root, so a conforming program's other ranks can pick another algorithm than
// the root for the same call (a hang or a wrong result), whatever the file says.
const std::array<OpenMpiCollective, 7>& open_mpi_collectives() {
  static const std::array<OpenMpiCollective, 7> table = {{
      {"all_gather", 0, "allgather", "allgather", {"ignore", "linear", "bruck", "recursive_doubling", "ring", "neighbor", "two_proc"}},
      {"all_reduce", 2, "allreduce", "allreduce",
       {"ignore", "basic_linear", "nonoverlapping", "recursive_doubling", "ring", "segmented_ring", "rabenseifner"}},
      {"alltoall", 3, "alltoall", "alltoall", {"ignore", "linear", "pairwise", "modified_bruck", "linear_sync", "two_proc"}},
      {"broadcast", 7, "bcast", "bcast",
       {"ignore", "basic_linear", "chain", "pipeline", "split_binary_tree", "binary_tree", "binomial", "knomial", "scatter_allgather",
        "scatter_allgather_ring"}},
      {"gather", 9, "gather", "gather", {"ignore", "basic_linear", "binomial", "linear_sync"}},
      {"reduce", 11, "reduce", "reduce", {"ignore", "linear", "chain", "pipeline", "binary", "binomial", "in-order_binary", "rabenseifner"}},
      {"reduce_scatter", 13, "reduce_scatter_block", "reduce_scatter_block",
       {"ignore", "basic_linear", "recursive_doubling", "recursive_halving", "butterfly"}},
  }};
  return table;
}

const OpenMpiCollective* open_mpi_collective(const std::string& collective) {
  for (const auto& entry : open_mpi_collectives()) {
    if (collective == entry.ours) return &entry;
  }
  return nullptr;
}

// The forced runs' fan-in/out and segment size: Open MPI 4.1's defaults for
// coll_tuned_<name>_algorithm_chain_fanout (4) and _segmentsize (0), so the file asks for what the
// candidate's runs measured.
constexpr int kOpenMpiFanInOut = 4;
constexpr int kOpenMpiSegmentSize = 0;

// The provenance key the JSON form carries its "# tune:" lines in: Open MPI's reader looks up only
// the keys it knows, so it passes over this one.
constexpr const char* kJsonProvenanceKey = "collbench_tune";

// The example tuner's collective names.
std::string nccl_collective(const std::string& collective) {
  if (collective == "all_reduce") return "allreduce";
  if (collective == "all_gather") return "allgather";
  if (collective == "reduce_scatter") return "reducescatter";
  if (collective == "broadcast" || collective == "reduce") return collective;
  return "";
}

// The example tuner reads lines of at most 255 characters; a longer comment would be cut and its
// rest read as a rule. Values are cut well below that, and made printable: a report's host or CPU
// name reaches whoever reads the file.
std::map<std::string, std::string> provenance_fields(const TuneDecision& decision, TuneLibrary library) {
  std::map<std::string, std::string> fields;
  for (const auto& [key, value] : decision.provenance) fields[printable(key).substr(0, 60)] = printable(value).substr(0, 160);
  fields["library"] = to_string(library);
  fields["collective"] = decision.collective;
  fields["world_size"] = std::to_string(decision.world_size);
  return fields;
}

std::string provenance_lines(const TuneDecision& decision, TuneLibrary library) {
  std::string text;
  for (const auto& [key, value] : provenance_fields(decision, library)) text += "# tune: " + key + "=" + value + "\n";
  return text;
}

const OpenMpiCollective& open_mpi_entry_for_file(const std::string& collective) {
  const OpenMpiCollective* entry = open_mpi_collective(collective);
  if (!entry) {
    throw InputError("tune: Open MPI's dynamic rules do not size " + collective +
                     " as collbench's bytes (or, for scatter, not alike at every rank); no rules file is written for it");
  }
  return *entry;
}

// 4.1 and 5.0 (ompi_coll_tuned_get_com_rule_ptr) take the last communicator-size entry not above
// the communicator's size, and the first entry for a smaller one. So the rules sit at N between an
// entry at 1 rank and one at N+1, each with Open MPI's own choice alone: every other size (a
// Comm_split group, a HAN sub-communicator) decides as without the file.
std::string open_mpi_classic_text(const TuneDecision& decision, const std::vector<TunedRange>& ranges) {
  const OpenMpiCollective& entry = open_mpi_entry_for_file(decision.collective);
  // Rules from size 0 up (Open MPI requires the first at 0): the default, each tuned range, and
  // the default again after it.
  std::vector<std::pair<std::uint64_t, int>> rules = {{0, 0}};
  for (const auto& range : ranges) {
    if (rules.back().first == range.first_bytes) rules.pop_back();
    rules.emplace_back(range.first_bytes, range.candidate.mpi_algorithm);
    rules.emplace_back(range.last_bytes + 1, 0);
  }
  const int ranks = decision.world_size;
  std::ostringstream out;
  out << "# Open MPI 4.1/5.0 dynamic rules (coll_tuned_use_dynamic_rules=1, coll_tuned_dynamic_rules_filename=FILE), written by collbench tune\n"
      << "# collective id, then per communicator size: its rules, each 'from_bytes algorithm faninout segsize' (algorithm 0: Open MPI's own choice)\n"
      << provenance_lines(decision, TuneLibrary::kOpenMpi) << "1\n" << entry.id << "\n" << (ranks > 1 ? 3 : 2) << "\n";
  if (ranks > 1) out << "# below " << ranks << " ranks: Open MPI's own choice\n1\n1\n0 0 0 0\n";
  out << "# the measured rules, at " << ranks << " ranks only\n" << ranks << "\n" << rules.size() << "\n";
  for (const auto& [bytes, algorithm] : rules) {
    out << bytes << " " << algorithm << " " << (algorithm ? kOpenMpiFanInOut : 0) << " " << kOpenMpiSegmentSize << "\n";
  }
  out << "# from " << ranks + 1 << " ranks: Open MPI's own choice\n" << ranks + 1 << "\n1\n0 0 0 0\n";
  return out.str();
}

// 6.0 and later read JSON first; their classic reader makes entry k cover the sizes from entry
// k-1's up to its own minus 1, so the classic file above would put the rules below N there.
// comm_size_min = comm_size_max = N, and message rules only for the tuned ranges (a size no rule
// matches takes Open MPI's own choice).
std::string open_mpi_json_text(const TuneDecision& decision, const std::vector<TunedRange>& ranges) {
  const OpenMpiCollective& entry = open_mpi_entry_for_file(decision.collective);
  nlohmann::ordered_json rules = nlohmann::ordered_json::array();
  for (const auto& range : ranges) {
    rules.push_back({{"msg_size_min", range.first_bytes}, {"msg_size_max", range.last_bytes}, {"alg", range.candidate.mpi_algorithm},
                     {"faninout", kOpenMpiFanInOut}});
  }
  nlohmann::ordered_json file;
  file["rule_file_version"] = 3;
  file["module"] = "tuned";
  file[kJsonProvenanceKey] = provenance_fields(decision, TuneLibrary::kOpenMpi);
  file["collectives"][entry.json_name] =
      nlohmann::ordered_json::array({{{"comm_size_min", decision.world_size}, {"comm_size_max", decision.world_size}, {"rules", rules}}});
  return file.dump(2) + "\n";
}

std::string nccl_text(const TuneDecision& decision, const std::vector<TunedRange>& ranges) {
  const std::string name = nccl_collective(decision.collective);
  if (name.empty()) throw InputError("tune: NCCL's example tuner has no rules for " + decision.collective);
  std::ostringstream out;
  out << "# NCCL example tuner (ext-tuner/example; NCCL_TUNER_CONFIG_FILE=FILE), written by collbench tune\n"
      << "# collective,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks\n" << provenance_lines(decision, TuneLibrary::kNccl);
  for (const auto& range : ranges) {
    out << name << "," << range.first_bytes << "," << range.last_bytes << "," << range.candidate.nccl_algorithm << ","
        << range.candidate.nccl_protocol << "," << range.candidate.nccl_channels << "," << (decision.hosts > 0 ? std::to_string(decision.hosts) : "-1") << "," << decision.world_size
        << "\n";
  }
  return out.str();
}

std::string gloo_text(const TuneDecision& decision, const std::vector<TunedRange>& ranges) {
  std::ostringstream out;
  out << "# gloo algorithm per message size for collbench's programs (--algo-file FILE), written by collbench tune\n"
      << "# collective first_bytes last_bytes algorithm\n" << provenance_lines(decision, TuneLibrary::kGloo);
  for (const auto& range : ranges) {
    out << decision.collective << " " << range.first_bytes << " " << range.last_bytes << " " << range.candidate.gloo_algorithm << "\n";
  }
  return out.str();
}

std::uint64_t parse_count(const std::string& word, const std::string& where) {
  // 19 digits at most: every such number fits 64 bits, so no text reaches stoull's overflow.
  if (word.empty() || word.size() > 19 || word.find_first_not_of("0123456789") != std::string::npos) {
    throw InputError(where + ": '" + word + "' is not a number (at most 19 digits)");
  }
  return std::stoull(word);
}

struct RuleNumber {
  std::uint64_t value = 0;
  int line = 0;
};

// The numbers of a classic rules file in order, with their lines (comments skipped), as Open MPI
// reads them; through the shared line reader, so its line-end rule holds here too.
std::vector<RuleNumber> rule_numbers(const std::string& text, const std::string& path) {
  std::vector<RuleNumber> numbers;
  for_each_csv_row(text, "", [&](int line, const std::vector<std::string>& fields, const std::string& whole) {
    const std::string where = path + ":" + std::to_string(line);
    if (fields.size() != 1) throw InputError(where + ": a rules line holds numbers apart by spaces, not commas");
    std::istringstream words(whole.substr(0, whole.find('#')));
    std::string word;
    while (words >> word) numbers.push_back({parse_count(word, where), line});
  });
  return numbers;
}

// One communicator-size entry of a classic file: its size and its rules (from_bytes, algorithm).
struct ClassicEntry {
  RuleNumber ranks;
  std::vector<std::pair<RuleNumber, std::uint64_t>> rules;
};

std::vector<ClassicEntry> classic_entries(const std::vector<RuleNumber>& numbers, const std::string& path, const OpenMpiCollective& entry) {
  std::size_t at = 0;
  const auto next = [&](const char* what) {
    if (at >= numbers.size()) {
      throw InputError(path + ": the rules end early: " + what + " expected" +
                       (numbers.empty() ? std::string() : " after line " + std::to_string(numbers.back().line)));
    }
    return numbers[at++];
  };
  if (next("the collective count").value != 1) throw InputError(path + ": expected rules for one collective");
  const RuleNumber id = next("the collective id");
  if (id.value != static_cast<std::uint64_t>(entry.id)) {
    throw InputError(path + ":" + std::to_string(id.line) + ": its collective id " + std::to_string(id.value) + " is not " + entry.ours + "'s (" +
                     std::to_string(entry.id) + ")");
  }
  const RuleNumber count = next("the communicator size count");
  std::vector<ClassicEntry> entries;
  for (std::uint64_t c = 0; c < count.value; ++c) {
    ClassicEntry size{next("a communicator size"), {}};
    if (!entries.empty() && size.ranks.value <= entries.back().ranks.value) {
      throw InputError(path + ":" + std::to_string(size.ranks.line) + ": communicator size " + std::to_string(size.ranks.value) +
                       " does not follow " + std::to_string(entries.back().ranks.value) + " (line " + std::to_string(entries.back().ranks.line) +
                       "): Open MPI 4.1 and 5.0 need them increasing");
    }
    const RuleNumber rules = next("a rule count");
    for (std::uint64_t r = 0; r < rules.value; ++r) {
      const RuleNumber bytes = next("a message size"), algorithm = next("an algorithm");
      next("a fan-in/out");
      next("a segment size");
      if (size.rules.empty() && bytes.value != 0) {
        throw InputError(path + ":" + std::to_string(bytes.line) + ": the first rule must start at 0 bytes (Open MPI ignores the file otherwise)");
      }
      if (!size.rules.empty() && bytes.value <= size.rules.back().first.value) {
        throw InputError(path + ":" + std::to_string(bytes.line) + ": the rule from " + std::to_string(bytes.value) + " bytes does not follow the rule from " +
                         std::to_string(size.rules.back().first.value) + " bytes (line " + std::to_string(size.rules.back().first.line) +
                         "): message sizes must increase");
      }
      if (algorithm.value >= entry.algorithms.size()) {
        throw InputError(path + ":" + std::to_string(algorithm.line) + ": algorithm " + std::to_string(algorithm.value) + " is not one of Open MPI 4.1's");
      }
      size.rules.emplace_back(bytes, algorithm.value);
    }
    entries.push_back(std::move(size));
  }
  if (at < numbers.size()) throw InputError(path + ":" + std::to_string(numbers[at].line) + ": more numbers after the last rule");
  return entries;
}

bool only_default(const ClassicEntry& size) {
  return std::all_of(size.rules.begin(), size.rules.end(), [](const auto& rule) { return rule.second == 0; });
}

// The ranges of the entry at the file's world size. Rules anywhere else, or rules at N that Open
// MPI 4.1 and 5.0 would also apply below or above N (no entry of its own choice there), change
// what was not measured: refused.
void parse_open_mpi_classic(const std::string& text, const std::string& path, TuningFile& file, const OpenMpiCollective& entry) {
  const auto entries = classic_entries(rule_numbers(text, path), path, entry);
  const auto n = static_cast<std::uint64_t>(file.world_size);
  const ClassicEntry* measured = nullptr;
  for (const auto& size : entries) {
    if (size.ranks.value == n) {
      measured = &size;
    } else if (!only_default(size)) {
      throw InputError(path + ":" + std::to_string(size.ranks.line) + ": sets rules at " + std::to_string(size.ranks.value) +
                       " ranks, where nothing was measured (the file is for " + std::to_string(n) + ")");
    }
  }
  if (!measured) throw InputError(path + ": no rules at its world size " + std::to_string(n));
  if (only_default(*measured)) return;
  const auto line = std::to_string(measured->ranks.line);
  if (n > 1 && &entries.front() == measured) {
    throw InputError(path + ":" + line + ": its rules would hold below " + std::to_string(n) +
                     " ranks too (Open MPI 4.1 and 5.0 use the first entry there): add an entry at 1 rank with '0 0 0 0'");
  }
  if (&entries.back() == measured) {
    throw InputError(path + ":" + line + ": its rules would hold above " + std::to_string(n) + " ranks too: add an entry at " +
                     std::to_string(n + 1) + " ranks with '0 0 0 0'");
  }
  const auto& rules = measured->rules;
  for (std::size_t r = 0; r < rules.size(); ++r) {
    const auto algorithm = rules[r].second;
    if (algorithm == 0) continue;
    if (r + 1 == rules.size()) {
      throw InputError(path + ":" + std::to_string(rules[r].first.line) + ": its last rule is not Open MPI's own choice; tune writes it so");
    }
    TunedRange range{rules[r].first.value, rules[r + 1].first.value - 1, "", {}};
    range.candidate.mpi_algorithm = static_cast<int>(algorithm);
    range.setting = entry.algorithms[algorithm] + " (" + std::to_string(algorithm) + ")";
    file.ranges.push_back(range);
  }
}

std::uint64_t json_count(const nlohmann::json& value, const std::string& where) {
  if (!value.is_number_unsigned()) throw InputError(where + " is not a whole number");
  return value.get<std::uint64_t>();
}

// The JSON form: one collective, one communicator entry at exactly N, its message rules apart.
void parse_open_mpi_json(const nlohmann::json& document, const std::string& path, TuningFile& file, const OpenMpiCollective& entry) {
  const auto collectives = document.find("collectives");
  if (collectives == document.end() || !collectives->is_object()) throw InputError(path + ": no \"collectives\" object");
  for (const auto& [name, value] : collectives->items()) {
    if (name != entry.json_name) throw InputError(path + ": rules for " + printable(name) + ", which the file was not measured for");
  }
  const auto sizes = collectives->find(entry.json_name);
  if (sizes == collectives->end() || !sizes->is_array() || sizes->size() != 1 || !sizes->at(0).is_object()) {
    throw InputError(path + ": expected one communicator entry for " + entry.json_name);
  }
  const nlohmann::json& size = sizes->at(0);
  const std::string where = path + ": collectives." + entry.json_name + "[0]";
  const auto n = static_cast<std::uint64_t>(file.world_size);
  if (!size.contains("comm_size_min") || !size.contains("comm_size_max") || json_count(size["comm_size_min"], where + ".comm_size_min") != n ||
      json_count(size["comm_size_max"], where + ".comm_size_max") != n) {
    throw InputError(where + ": comm_size_min and comm_size_max must both be " + std::to_string(n) + ", the measured world size");
  }
  const auto rules = size.find("rules");
  if (rules == size.end() || !rules->is_array()) throw InputError(where + ": no \"rules\" array");
  for (std::size_t r = 0; r < rules->size(); ++r) {
    const nlohmann::json& rule = rules->at(r);
    const std::string at = where + ".rules[" + std::to_string(r) + "]";
    if (!rule.is_object() || !rule.contains("msg_size_min") || !rule.contains("msg_size_max") || !rule.contains("alg")) {
      throw InputError(at + ": expected msg_size_min, msg_size_max and alg");
    }
    TunedRange range{json_count(rule["msg_size_min"], at + ".msg_size_min"), json_count(rule["msg_size_max"], at + ".msg_size_max"), "", {}};
    const auto algorithm = json_count(rule["alg"], at + ".alg");
    const std::string span = std::to_string(range.first_bytes) + "-" + std::to_string(range.last_bytes);
    if (range.last_bytes < range.first_bytes) throw InputError(at + ": the range " + span + " ends before it starts");
    if (algorithm == 0 || algorithm >= entry.algorithms.size()) {
      throw InputError(at + ": algorithm " + std::to_string(algorithm) + " is not one of Open MPI 4.1's");
    }
    for (std::size_t earlier = 0; earlier < file.ranges.size(); ++earlier) {
      const TunedRange& other = file.ranges[earlier];
      if (range.first_bytes <= other.last_bytes && other.first_bytes <= range.last_bytes) {
        throw InputError(at + ": the range " + span + " overlaps " + std::to_string(other.first_bytes) + "-" + std::to_string(other.last_bytes) +
                         " (rules[" + std::to_string(earlier) + "])");
      }
    }
    range.candidate.mpi_algorithm = static_cast<int>(algorithm);
    range.setting = entry.algorithms[algorithm] + " (" + std::to_string(algorithm) + ")";
    file.ranges.push_back(range);
  }
}

void parse_nccl(const std::string& text, const std::string& path, TuningFile& file) {
  for (const auto& row : parse_nccl_tuner_rows(text, path)) {
    const std::string where = path + ":" + std::to_string(row.line);
    if (row.collective_name != nccl_collective(file.collective)) {
      throw InputError(where + ": a rule for " + row.collective_name + ", not " + file.collective);
    }
    TunedRange range{row.min_bytes, row.max_bytes, "", {}};
    range.candidate.nccl_algorithm = row.algorithm_name;
    range.candidate.nccl_protocol = row.protocol_name;
    range.candidate.nccl_channels = row.channels;
    range.setting = row.algorithm_name + "/" + row.protocol_name + (row.channels > 0 ? "/ch" + std::to_string(row.channels) : "");
    file.ranges.push_back(range);
  }
}

void parse_gloo(const std::string& text, const std::string& path, TuningFile& file) {
  for (const auto& rule : parse_algorithm_ranges(text, path)) {
    if (rule.collective != file.collective) throw InputError(path + ": a rule for " + rule.collective + ", not " + file.collective);
    TunedRange range{rule.first_bytes, rule.last_bytes, rule.algorithm, {}};
    range.candidate.gloo_algorithm = rule.algorithm;
    file.ranges.push_back(range);
  }
}

// The JSON form of Open MPI's file, or nothing: a file whose first character is '{'.
std::optional<nlohmann::json> json_document(const std::string& text, const std::string& path) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || text[first] != '{') return std::nullopt;
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path + ": not valid JSON (" + printable(e.what()).substr(0, 120) + ")");
  }
}

TuningFile parse_any_tuning_file(const std::string& text, const std::string& path) {
  TuningFile file;
  const auto json = json_document(text, path);
  if (json) {
    const auto provenance = json->find(kJsonProvenanceKey);
    if (provenance == json->end() || !provenance->is_object()) throw InputError(path + ": not a file collbench tune wrote (no \"collbench_tune\" object)");
    for (const auto& [key, value] : provenance->items()) {
      if (value.is_string()) file.provenance[key] = value.get<std::string>();
    }
  } else {
    const std::string marker = "# tune: ";
    for_each_csv_row(text, "", [](int, const std::vector<std::string>&, const std::string&) {}, [&](const std::string& line) {
      const auto equals = line.find('=');
      if (line.rfind(marker, 0) != 0 || equals == std::string::npos) return;
      file.provenance[line.substr(marker.size(), equals - marker.size())] = line.substr(equals + 1);
    });
  }
  const auto field = [&](const std::string& name) {
    const auto it = file.provenance.find(name);
    if (it == file.provenance.end() || it->second.empty()) {
      throw InputError(path + ": not a file collbench tune wrote (no '# tune: " + name + "=' line)");
    }
    return it->second;
  };
  const std::string library = field("library");
  file.collective = field("collective");
  const std::uint64_t world_size = parse_count(field("world_size"), path);
  if (world_size < 1 || world_size > (1u << 24)) throw InputError(path + ": world_size " + std::to_string(world_size) + " is out of range");
  file.world_size = static_cast<int>(world_size);
  if (library == to_string(TuneLibrary::kOpenMpi)) {
    file.library = TuneLibrary::kOpenMpi;
    const OpenMpiCollective* entry = open_mpi_collective(file.collective);
    if (!entry) throw InputError(path + ": Open MPI rules for " + printable(file.collective) + " are not among those tune writes");
    if (json) {
      file.form = OpenMpiRulesForm::kJson;
      parse_open_mpi_json(*json, path, file, *entry);
    } else {
      parse_open_mpi_classic(text, path, file, *entry);
    }
  } else if (json) {
    throw InputError(path + ": a JSON file is Open MPI's form, not " + printable(library) + "'s");
  } else if (library == to_string(TuneLibrary::kNccl)) {
    file.library = TuneLibrary::kNccl;
    parse_nccl(text, path, file);
  } else if (library == to_string(TuneLibrary::kGloo)) {
    file.library = TuneLibrary::kGloo;
    parse_gloo(text, path, file);
  } else {
    throw InputError(path + ": unknown library '" + printable(library) + "'");
  }
  return file;
}

}  // namespace

const std::vector<std::string>* open_mpi_algorithms(const std::string& collective) {
  const OpenMpiCollective* entry = open_mpi_collective(collective);
  return entry ? &entry->algorithms : nullptr;
}

std::string open_mpi_parameter(const std::string& collective) {
  const OpenMpiCollective* entry = open_mpi_collective(collective);
  return entry ? entry->parameter : "";
}

OpenMpiRulesForm open_mpi_rules_form_of(const std::string& version) {
  // "Open MPI v4.1.4", "Open MPI v6.0.0rc1": the first number after the name.
  const auto digit = version.find_first_of("0123456789");
  if (digit == std::string::npos) return OpenMpiRulesForm::kClassic;
  const auto end = version.find_first_not_of("0123456789", digit);
  const std::string major = version.substr(digit, std::min<std::size_t>(end == std::string::npos ? version.size() - digit : end - digit, 6));
  return std::stoi(major) >= 6 ? OpenMpiRulesForm::kJson : OpenMpiRulesForm::kClassic;
}

OpenMpiRulesForm resolved_rules_form(const TuneDecision& decision, OpenMpiRulesForm asked) {
  if (asked != OpenMpiRulesForm::kFromVersion) return asked;
  const auto version = decision.provenance.find("versions.mpi");
  return version == decision.provenance.end() ? OpenMpiRulesForm::kClassic : open_mpi_rules_form_of(version->second);
}

std::string tuning_file_name(TuneLibrary library, OpenMpiRulesForm form) {
  switch (library) {
    case TuneLibrary::kOpenMpi: return form == OpenMpiRulesForm::kJson ? "ompi-rules.json" : "ompi-rules.conf";
    case TuneLibrary::kNccl: return "nccl_tuner.conf";
    case TuneLibrary::kGloo: return "gloo-algo.conf";
  }
  return "tuning.conf";
}

std::vector<TunedRange> tuned_ranges(const TuneDecision& decision) {
  std::vector<TunedRange> out;
  for (std::size_t i = 0; i < decision.ranges.size(); ++i) {
    const TuneRange& range = decision.ranges[i];
    if (!range.chosen) continue;
    const std::uint64_t last = i + 1 < decision.ranges.size() ? decision.ranges[i + 1].first_bytes - 1 : range.last_bytes;
    const TuneCandidate& candidate = decision.candidates.at(*range.chosen);
    out.push_back({range.first_bytes, last, candidate.name, candidate});
  }
  return out;
}

std::string tuning_file_text(const TuneDecision& decision, TuneLibrary library, OpenMpiRulesForm form) {
  const auto ranges = tuned_ranges(decision);
  switch (library) {
    case TuneLibrary::kOpenMpi:
      return resolved_rules_form(decision, form) == OpenMpiRulesForm::kJson ? open_mpi_json_text(decision, ranges)
                                                                             : open_mpi_classic_text(decision, ranges);
    case TuneLibrary::kNccl: return nccl_text(decision, ranges);
    case TuneLibrary::kGloo: return gloo_text(decision, ranges);
  }
  return "";
}

TuningFile parse_tuning_file(const std::string& text, const std::string& path) {
  try {
    return parse_any_tuning_file(text, path);
  } catch (const UsageError& e) {  // the parsers in core (NCCL's rows, gloo's ranges)
    throw InputError(e.what());
  }
}

TuningFile read_tuning_file(const std::string& path) {
  try {
    return parse_tuning_file(read_tuning_file_text(path), path);
  } catch (const UsageError& e) {
    throw InputError(e.what());
  }
}

}  // namespace collbench::summarize
