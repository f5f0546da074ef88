// The tuning files `collbench tune` writes, and reads back for --verify:
// - Open MPI: the dynamic rules file (coll_tuned_dynamic_rules_filename), in the classic form that
//   4.1 and 5.0 read, or the JSON form of 6.0 and later (whose classic reader maps communicator
//   sizes differently); each sets rules at the measured world size N only;
// - NCCL: the example tuner plugin's CSV (ext-tuner/example, NCCL_TUNER_CONFIG_FILE);
// - gloo: collbench's own --algo-file (core/algorithm_ranges.h).
// Each starts with '#' lines that name where it came from ("# tune: key=value"): the machine, the
// world size, the library version and the runs. All three readers skip such lines.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "summarize/tuning/tune.h"

namespace collbench::summarize {

// One range the file sets (ranges the file leaves to the library's default are not listed).
struct TunedRange {
  std::uint64_t first_bytes = 0, last_bytes = 0;  // inclusive
  std::string setting;                            // in words, as the candidate's name would say it
  TuneCandidate candidate;                        // the file's fields of it (mpi_algorithm, ...)
};

struct TuningFile {
  TuneLibrary library = TuneLibrary::kOpenMpi;
  OpenMpiRulesForm form = OpenMpiRulesForm::kClassic;  // Open MPI's: the JSON form or the classic
  std::string collective;
  int world_size = 0;
  std::vector<TunedRange> ranges;
  std::map<std::string, std::string> provenance;
};

// The file name tune writes into its folder: ompi-rules.conf (ompi-rules.json in the JSON form),
// nccl_tuner.conf, gloo-algo.conf.
std::string tuning_file_name(TuneLibrary library, OpenMpiRulesForm form = OpenMpiRulesForm::kClassic);

// The form Open MPI of this version reads as meant ("Open MPI v4.1.4": classic; v6 and later:
// JSON); classic where the version says no number.
OpenMpiRulesForm open_mpi_rules_form_of(const std::string& version);

// The form a decision's file takes: `asked` unless kFromVersion, else its runs' versions.mpi's.
OpenMpiRulesForm resolved_rules_form(const TuneDecision& decision, OpenMpiRulesForm asked);

// The ranges a decision sets: each non-default range from its first measured size to the byte
// before the next range's; the last to its last measured size. Outside the measured sizes the
// library's default stays: nothing was measured there.
std::vector<TunedRange> tuned_ranges(const TuneDecision& decision);

// The file's text (Open MPI's in `form`, resolved as above). Throws InputError for a collective the
// library's file cannot name.
std::string tuning_file_text(const TuneDecision& decision, TuneLibrary library, OpenMpiRulesForm form = OpenMpiRulesForm::kFromVersion);

// Reads a file tune wrote (its library from the "# tune: library=" line, or the JSON form's
// "collbench_tune" object). Throws InputError naming the path, and the line where there is one, for
// anything else: a malformed or truncated file, rules at another communicator size than the
// measured one, message or communicator sizes out of order, ranges that overlap (both named).
TuningFile parse_tuning_file(const std::string& text, const std::string& path);
TuningFile read_tuning_file(const std::string& path);

// Open MPI 4.1's forced-algorithm names per collective, index = the algorithm's number (0 is
// Open MPI's own decision), as `ompi_info --param coll tuned --level 9` lists them.
const std::vector<std::string>* open_mpi_algorithms(const std::string& collective);

// Open MPI's MCA name of a collective's forced algorithm (coll_tuned_<name>_algorithm), or "".
std::string open_mpi_parameter(const std::string& collective);

}  // namespace collbench::summarize
