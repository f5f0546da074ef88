// collbench tune: from interleaved runs of a library's algorithm settings to the tuning file the
// library reads, a setting chosen at a size only where ab's paired test finds it faster than the
// library's own choice; and --verify, which runs that file against the default as ab does.
//
// Each candidate runs against the default as one `ab` (A = the default, B = the candidate; ABBA,
// resumable, the machine-state guard) in DIR/<candidate>, so its verdict per size is exactly the
// one `collbench ab` would give: the Wilcoxon signed-rank interval on the pairs, Holm over the sizes.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "summarize/runs/ab.h"
#include "summarize/verdicts/compare.h"
#include "summarize/common/document.h"
#include "summarize/common/load.h"

namespace collbench::summarize {

enum class TuneLibrary { kOpenMpi, kGloo, kNccl };

// Open MPI's rules file: the classic text of 4.1 and 5.0, or the JSON of 6.0 and later; by
// default the form of the Open MPI version the runs used.
enum class OpenMpiRulesForm { kFromVersion, kClassic, kJson };
std::string to_string(TuneLibrary library);

// One setting to try. The library's default is no candidate: it is every comparison's side A.
struct TuneCandidate {
  std::string name;    // for the table: "ring (4)", "ring_chunked", "Ring/LL128/ch4"
  std::string folder;  // its ab folder under tune's DIR: "mpi-4", "gloo-ring", "nccl-Ring-LL128-ch4"
  std::vector<std::string> arguments;                       // added to the benchmark's (gloo, NCCL: --algo, --proto)
  std::vector<std::pair<std::string, std::string>> env;     // set for its runs (Open MPI's forced algorithm; NCCL's tuner plugin and its CSV)
  // What the file says for it.
  int mpi_algorithm = 0;
  std::string gloo_algorithm;
  std::string nccl_algorithm, nccl_protocol;  // the example tuner's names: ring, tree, ...; ll, ll128, simple
  int nccl_channels = -1;                     // -1: NCCL's own count
};

struct TuneRequest {
  // Each list as given: "all" or names/numbers. Exactly one library's lists may be given.
  std::vector<std::string> mpi_algorithms, gloo_algorithms, nccl_algorithms, nccl_protocols, nccl_channels;
};

// The collective a benchmark measures, from its program name ("bin/all_reduce_perf" -> "all_reduce").
std::string collective_of_program(const std::string& program);

// The candidates of a request for one collective and world size. Throws InputError for an empty
// set, two libraries at once, an unknown name, or a collective the library has no choices for.
// TuneLibrary is set to the request's library.
std::vector<TuneCandidate> expand_candidates(const TuneRequest& request, const std::string& collective, TuneLibrary& library);

// The argument vector of a candidate's runs (or the default's, for nullptr): env first where it sets any.
std::vector<std::string> candidate_command(const std::vector<std::string>& bench, const TuneCandidate* candidate);

// One candidate's runs: the default's (A) and its own (B), paired by file name; or why none.
struct CandidateRuns {
  TuneCandidate candidate;
  std::vector<LoadedReport> default_runs, candidate_runs;
  std::string skipped;  // non-empty: the backend could not run it (the reason), and it is out of the decision
};

struct SizeChoice {
  std::uint64_t bytes = 0;
  double default_us = 0;                 // the default's geometric mean time at this size (its comparison with `best`)
  std::optional<std::size_t> best;       // the candidate with the best estimate here, if any ran
  double best_us = 0, change = 0;        // the best candidate's time and its change against the default (negative: faster)
  std::optional<double> change_low, change_high;
  std::string best_verdict;              // FASTER, SAME, SLOWER, UNKNOWN (ab's, with Holm over the sizes)
  std::optional<std::size_t> chosen;     // the candidate the file uses here; none: the default
  std::string why;                       // in words: why this choice
};

struct TuneRange {
  std::uint64_t first_bytes = 0, last_bytes = 0;  // the measured sizes it spans
  std::optional<std::size_t> chosen;              // none: the default
};

struct TuneDecision {
  std::string collective;
  int world_size = 1;
  int hosts = 1;  // the NCCL file's nNodes; -1: any
  std::vector<TuneCandidate> candidates;
  std::vector<std::string> skipped;  // "NAME: reason"
  std::vector<SizeChoice> sizes;     // ascending
  std::vector<TuneRange> ranges;     // neighbouring sizes with one choice merged, ascending
  std::map<std::string, std::string> provenance;  // machine.*, versions.*, world_size, runs, ...
  double min_effect = 0.03, alpha = 0.05;
};

// The per-size choice and the ranges, from the runs (pure: tested on fixture reports). A candidate
// replaces the default at a size only when ab's verdict there is FASTER (the interval below 0 and
// the estimate at least min_effect, after Holm over that candidate's sizes). Where several
// candidates are FASTER, the previous size's choice stays if it is one of them (no two candidates
// were compared with each other, so no split without evidence), else the best estimate wins.
// Throws InputError when the runs hold more than one series (placements, dtypes, ops) or no size.
TuneDecision decide_tuning(const std::vector<CandidateRuns>& runs, const CompareOptions& options);

Document decision_document(const TuneDecision& decision);

struct TuneOptions {
  TuneRequest request;
  AbOptions ab;  // runs, max_runs, state_reruns, world_size, launcher, timeout, compare; out_dir is tune's DIR
  std::vector<std::string> bench;
  std::string verify_file;      // --verify FILE
  std::string tuner_plugin;     // --nccl-tuner-plugin LIB: for verifying an NCCL file
  OpenMpiRulesForm rules_form = OpenMpiRulesForm::kFromVersion;  // --rules-format
};

struct TuneOutcome {
  Document document;
  int exit_code = 0;
};

// Runs every candidate against the default (resumable: each candidate's folder is an ab folder),
// decides, writes the library's file and DIR/decision.md. Progress goes to `progress`.
TuneOutcome run_tune(const TuneOptions& options, std::FILE* progress);

// Runs the default and the file's setting interleaved over the benchmark's sizes (an ab in
// DIR/verify) and reports each range's change with its interval. A file of another machine,
// world size or library version is refused (InputError naming the field).
TuneOutcome run_verify(const TuneOptions& options, std::FILE* progress);

}  // namespace collbench::summarize
