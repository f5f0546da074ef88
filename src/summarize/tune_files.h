// The tuning files `collbench tune` writes, and reads back for --verify:
// - Open MPI: the classic dynamic rules file (coll_tuned_dynamic_rules_filename), which Open MPI
//   4.1 reads and 5.x and later still read (as format version 1);
// - NCCL: the example tuner plugin's CSV (ext-tuner/example, NCCL_TUNER_CONFIG_FILE);
// - gloo: collbench's own --algo-file (core/algorithm_ranges.h).
// Each starts with '#' lines that name where it came from ("# tune: key=value"): the machine, the
// world size, the library version and the runs. All three readers skip such lines.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "summarize/tune.h"

namespace collbench::summarize {

// One range the file sets (ranges the file leaves to the library's default are not listed).
struct TunedRange {
  std::uint64_t first_bytes = 0, last_bytes = 0;  // inclusive
  std::string setting;                            // in words, as the candidate's name would say it
  TuneCandidate candidate;                        // the file's fields of it (mpi_algorithm, ...)
};

struct TuningFile {
  TuneLibrary library = TuneLibrary::kOpenMpi;
  std::string collective;
  int world_size = 0;
  std::vector<TunedRange> ranges;
  std::map<std::string, std::string> provenance;
};

// The file name tune writes into its folder: ompi-rules.conf, nccl_tuner.conf, gloo-algo.conf.
std::string tuning_file_name(TuneLibrary library);

// The ranges a decision sets: each non-default range from its first measured size to the byte
// before the next range's; the last to its last measured size. Outside the measured sizes the
// library's default stays: nothing was measured there.
std::vector<TunedRange> tuned_ranges(const TuneDecision& decision);

// The file's text. Throws InputError for a collective the library's file cannot name.
std::string tuning_file_text(const TuneDecision& decision, TuneLibrary library);

// Reads a file tune wrote (its library from the "# tune: library=" line). Throws InputError naming
// the path for anything else.
TuningFile parse_tuning_file(const std::string& text, const std::string& path);
TuningFile read_tuning_file(const std::string& path);

// Open MPI 4.1's forced-algorithm names per collective, index = the algorithm's number (0 is
// Open MPI's own decision), as `ompi_info --param coll tuned --level 9` lists them.
const std::vector<std::string>* open_mpi_algorithms(const std::string& collective);

}  // namespace collbench::summarize
