#include "summarize/tune_files.h"

#include <algorithm>
#include <array>
#include <sstream>

#include "core/algorithm_ranges.h"
#include "core/error.h"
#include "summarize/input_error.h"

namespace collbench::summarize {
namespace {

struct OpenMpiCollective {
  const char* ours;
  int id;  // COLLTYPE in ompi/mca/coll/base/coll_base_functions.h: the file's collective number
  std::vector<std::string> algorithms;
};

// Only the collectives whose message size in Open MPI's dynamic decision (datatype size x count,
// all_gather x ranks) is collbench's byte count; alltoall, gather, scatter and
// reduce_scatter_block measure theirs per block, and a file for them would cut at the wrong sizes.
const std::array<OpenMpiCollective, 4>& open_mpi_collectives() {
  static const std::array<OpenMpiCollective, 4> table = {{
      {"all_gather", 0, {"ignore", "linear", "bruck", "recursive_doubling", "ring", "neighbor", "two_proc"}},
      {"all_reduce", 2, {"ignore", "basic_linear", "nonoverlapping", "recursive_doubling", "ring", "segmented_ring", "rabenseifner"}},
      {"broadcast", 7, {"ignore", "basic_linear", "chain", "pipeline", "split_binary_tree", "binary_tree", "binomial", "knomial",
                        "scatter_allgather", "scatter_allgather_ring"}},
      {"reduce", 11, {"ignore", "linear", "chain", "pipeline", "binary", "binomial", "in-order_binary", "rabenseifner"}},
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

// The example tuner's collective names.
std::string nccl_collective(const std::string& collective) {
  if (collective == "all_reduce") return "allreduce";
  if (collective == "all_gather") return "allgather";
  if (collective == "reduce_scatter") return "reducescatter";
  if (collective == "broadcast" || collective == "reduce") return collective;
  return "";
}

// The example tuner reads lines of at most 255 characters; a longer comment would be cut and its
// rest read as a rule. Values are cut well below that.
std::string provenance_lines(const TuneDecision& decision, TuneLibrary library) {
  std::map<std::string, std::string> fields = decision.provenance;
  fields["library"] = to_string(library);
  fields["collective"] = decision.collective;
  fields["world_size"] = std::to_string(decision.world_size);
  std::string text;
  for (const auto& [key, value] : fields) {
    std::string clean = value.substr(0, 160);
    std::replace(clean.begin(), clean.end(), '\n', ' ');
    text += "# tune: " + key + "=" + clean + "\n";
  }
  return text;
}

std::string open_mpi_text(const TuneDecision& decision, const std::vector<TunedRange>& ranges) {
  const OpenMpiCollective* entry = open_mpi_collective(decision.collective);
  if (!entry) {
    throw InputError("tune: Open MPI's rules file measures " + decision.collective +
                     "'s message per block, not as collbench's bytes; no rules file is written for it");
  }
  // Rules from size 0 up (Open MPI requires the first at 0): the default, each tuned range, and
  // the default again after it.
  std::vector<std::pair<std::uint64_t, int>> rules = {{0, 0}};
  for (const auto& range : ranges) {
    if (rules.back().first == range.first_bytes) rules.pop_back();
    rules.emplace_back(range.first_bytes, range.candidate.mpi_algorithm);
    rules.emplace_back(range.last_bytes + 1, 0);
  }
  std::ostringstream rule_lines;
  rule_lines << rules.size() << "\n";
  for (const auto& [bytes, algorithm] : rules) {
    rule_lines << bytes << " " << algorithm << " " << (algorithm ? kOpenMpiFanInOut : 0) << " " << kOpenMpiSegmentSize << "\n";
  }
  // Communicator sizes N, N+1 (the rules) and N+2 (Open MPI's own choice): 4.1 and 5.0 apply an
  // entry from its size up to the next one's, so the rules hold at N and N+1; the classic reader
  // of Open MPI's main branch (2025) makes entry k cover the sizes from entry k-1's up to its own
  // minus 1, so there they hold up to N. Both give the rules at N, the size they were measured at.
  const int ranks = decision.world_size;
  std::ostringstream out;
  out << "# Open MPI dynamic rules (coll_tuned_use_dynamic_rules=1, coll_tuned_dynamic_rules_filename=FILE), written by collbench tune\n"
      << "# collective id, then per communicator size: its rules, each 'from_bytes algorithm faninout segsize' (algorithm 0: Open MPI's own choice)\n"
      << provenance_lines(decision, TuneLibrary::kOpenMpi) << "1\n" << entry->id << "\n"
      << "# the rules at " << ranks << " ranks (also " << ranks + 1 << " in Open MPI 4.1 and 5.0); Open MPI's own choice from " << ranks + 2 << "\n"
      << "3\n" << ranks << "\n" << rule_lines.str() << ranks + 1 << "\n" << rule_lines.str() << ranks + 2 << "\n1\n0 0 0 0\n";
  return out.str();
}

std::string nccl_text(const TuneDecision& decision, const std::vector<TunedRange>& ranges) {
  const std::string name = nccl_collective(decision.collective);
  if (name.empty()) throw InputError("tune: NCCL's example tuner has no rules for " + decision.collective);
  std::ostringstream out;
  out << "# NCCL example tuner (ext-tuner/example; NCCL_TUNER_CONFIG_FILE=FILE), written by collbench tune\n"
      << "# collective,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks\n" << provenance_lines(decision, TuneLibrary::kNccl);
  for (const auto& range : ranges) {
    out << name << "," << range.first_bytes << "," << range.last_bytes << "," << range.candidate.nccl_algorithm << ","
        << range.candidate.nccl_protocol << "," << range.candidate.nccl_channels << "," << decision.hosts << "," << decision.world_size
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

// The numbers of a rules file in order (comments skipped), as Open MPI reads them.
std::vector<std::uint64_t> rule_numbers(const std::string& text, const std::string& path) {
  std::vector<std::uint64_t> numbers;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string word;
    while (words >> word) numbers.push_back(parse_count(word, path));
  }
  return numbers;
}

void parse_open_mpi(const std::string& text, const std::string& path, TuningFile& file) {
  const auto numbers = rule_numbers(text, path);
  std::size_t at = 0;
  const auto next = [&]() {
    if (at >= numbers.size()) throw InputError(path + ": the rules end early");
    return numbers[at++];
  };
  if (next() != 1) throw InputError(path + ": expected rules for one collective");
  const auto id = next();
  const OpenMpiCollective* entry = nullptr;
  for (const auto& candidate : open_mpi_collectives()) {
    if (static_cast<std::uint64_t>(candidate.id) == id) entry = &candidate;
  }
  if (!entry || entry->ours != file.collective) throw InputError(path + ": its collective id " + std::to_string(id) + " is not " + file.collective + "'s");
  const auto communicator_sizes = next();
  for (std::uint64_t c = 0; c < communicator_sizes; ++c) {
    const auto ranks = next();
    const auto rules = next();
    std::vector<std::pair<std::uint64_t, std::uint64_t>> by_size;
    for (std::uint64_t r = 0; r < rules; ++r) {
      const auto bytes = next(), algorithm = next();
      next();
      next();
      by_size.emplace_back(bytes, algorithm);
    }
    if (ranks != static_cast<std::uint64_t>(file.world_size)) continue;
    for (std::size_t r = 0; r < by_size.size(); ++r) {
      const auto [bytes, algorithm] = by_size[r];
      if (algorithm == 0) continue;
      if (algorithm >= entry->algorithms.size()) throw InputError(path + ": algorithm " + std::to_string(algorithm) + " is not one of Open MPI 4.1's");
      if (r + 1 == by_size.size()) throw InputError(path + ": its last rule is not Open MPI's own choice; tune writes it so");
      TunedRange range{bytes, by_size[r + 1].first - 1, "", {}};
      range.candidate.mpi_algorithm = static_cast<int>(algorithm);
      range.setting = entry->algorithms[algorithm] + " (" + std::to_string(algorithm) + ")";
      file.ranges.push_back(range);
    }
  }
}

void parse_nccl(const std::string& text, const std::string& path, TuningFile& file) {
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    std::istringstream cells(line);
    std::string cell;
    while (std::getline(cells, cell, ',')) fields.push_back(cell);
    const std::string where = path + ":" + std::to_string(number);
    if (fields.size() != 8) throw InputError(where + ": expected 8 comma-separated fields");
    if (fields[0] != nccl_collective(file.collective)) throw InputError(where + ": a rule for " + fields[0] + ", not " + file.collective);
    TunedRange range{parse_count(fields[1], where), parse_count(fields[2], where), "", {}};
    range.candidate.nccl_algorithm = fields[3];
    range.candidate.nccl_protocol = fields[4];
    try {
      range.candidate.nccl_channels = std::stoi(fields[5]);
    } catch (const std::exception&) {
      throw InputError(where + ": '" + fields[5] + "' is not a channel count");
    }
    range.setting = fields[3] + "/" + fields[4] + (range.candidate.nccl_channels > 0 ? "/ch" + fields[5] : "");
    file.ranges.push_back(range);
  }
}

void parse_gloo(const std::string& text, const std::string& path, TuningFile& file) {
  try {
    for (const auto& rule : parse_algorithm_ranges(text, path)) {
      if (rule.collective != file.collective) throw InputError(path + ": a rule for " + rule.collective + ", not " + file.collective);
      TunedRange range{rule.first_bytes, rule.last_bytes, rule.algorithm, {}};
      range.candidate.gloo_algorithm = rule.algorithm;
      file.ranges.push_back(range);
    }
  } catch (const UsageError& e) {
    throw InputError(e.what());
  }
}

}  // namespace

const std::vector<std::string>* open_mpi_algorithms(const std::string& collective) {
  const OpenMpiCollective* entry = open_mpi_collective(collective);
  return entry ? &entry->algorithms : nullptr;
}

std::string tuning_file_name(TuneLibrary library) {
  switch (library) {
    case TuneLibrary::kOpenMpi: return "ompi-rules.conf";
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

std::string tuning_file_text(const TuneDecision& decision, TuneLibrary library) {
  const auto ranges = tuned_ranges(decision);
  switch (library) {
    case TuneLibrary::kOpenMpi: return open_mpi_text(decision, ranges);
    case TuneLibrary::kNccl: return nccl_text(decision, ranges);
    case TuneLibrary::kGloo: return gloo_text(decision, ranges);
  }
  return "";
}

TuningFile parse_tuning_file(const std::string& text, const std::string& path) {
  TuningFile file;
  std::istringstream in(text);
  std::string line;
  const std::string marker = "# tune: ";
  while (std::getline(in, line)) {
    if (line.rfind(marker, 0) != 0) continue;
    const auto equals = line.find('=');
    if (equals == std::string::npos) continue;
    file.provenance[line.substr(marker.size(), equals - marker.size())] = line.substr(equals + 1);
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
    parse_open_mpi(text, path, file);
  } else if (library == to_string(TuneLibrary::kNccl)) {
    file.library = TuneLibrary::kNccl;
    parse_nccl(text, path, file);
  } else if (library == to_string(TuneLibrary::kGloo)) {
    file.library = TuneLibrary::kGloo;
    parse_gloo(text, path, file);
  } else {
    throw InputError(path + ": unknown library '" + library + "'");
  }
  return file;
}

TuningFile read_tuning_file(const std::string& path) {
  try {
    return parse_tuning_file(read_tuning_file_text(path), path);
  } catch (const UsageError& e) {
    throw InputError(e.what());
  }
}

}  // namespace collbench::summarize
