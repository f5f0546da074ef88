// compare BASE NEW: a verdict per row, for CI and pull-request comments.
//
// The run is the unit of evidence: samples within one run are correlated (the same placement,
// clocks and neighbours), so pooling them calls ordinary run-to-run drift significant. Each run
// gives one figure per row, and the verdict comes from those run-level figures.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "summarize/common/document.h"
#include "summarize/common/figure.h"
#include "summarize/verdicts/recordings.h"
#include "summarize/common/run_stats.h"
#include "summarize/common/series.h"

namespace collbench::summarize {

enum class Verdict { kSame, kFaster, kSlower, kUnknown };
std::string to_string(Verdict verdict);

struct CompareOptions {
  RunFigure figure = RunFigure::kP10;  // each run's figure per timed row
  // The smallest relative change that counts. Paired: the least estimate a SLOWER (FASTER) needs.
  // Both: the half-width of the SAME band, unless the run-to-run spread is larger. 3 %, so that a
  // real 5 % change, whose estimate falls below 5 % half the time, is still found.
  double min_effect = 0.03;
  double alpha = 0.05;       // error of each one-sided bound: the interval is a 1 - 2 alpha one
  std::size_t min_runs = 3;  // runs a side before any verdict but UNKNOWN
  // Pair BASE's and NEW's runs by file name (ab writes A/run-K.json and B/run-K.json back to back):
  // each pair shares the machine's state, so a paired interval cancels drift between pairs.
  bool paired = false;
  // Many rows are judged at once; Holm's correction keeps the chance that any row of an A/A
  // comparison is called SLOWER (or FASTER) at alpha, instead of alpha per row.
  bool holm = true;
  // Key fields left out of a row's identity, so rows that differ only in them pair up: tune
  // compares the library's default with a forced algorithm, whose rows say which ran.
  std::vector<std::string> ignored_keys;
  // Unpaired only: runs whose state probe saw another machine state than the others' usual one are
  // set aside (--state-guard on|off), as history does; paired runs (ab) judge each pair instead.
  bool state_guard = true;
  // BASE is a stored baseline of recordings made at different times (--recordings, recordings.h):
  // each recording is one unit of evidence (the mean of its runs), the threshold is at least the
  // spread between recordings, and SLOWER is capped at UNKNOWN below kFewestRecordings. Unpaired only.
  bool by_recording = false;
};

// The decisions, kept apart so they can be tested on their own. `interval` is on log(new / base)
// (positive is slower); thresholds are logs of 1 + a relative change.
//
// Unpaired runs (made at different times, sharing no machine state), `threshold` being the larger
// of the minimum effect and the baseline's run-to-run spread:
//   low > threshold                  -> SLOWER  (slower by more than the threshold, with confidence)
//   high < -threshold                -> FASTER
//   -threshold < low, high < threshold -> SAME  (any change is smaller than the threshold)
//   otherwise                        -> UNKNOWN (the interval straddles a threshold: more runs decide)
Verdict decide(const LogRatioInterval& interval, double threshold);
// Paired runs (ab: each pair shares the machine's state, so the pairs' ratios test "no change"
// itself). `min_effect` gates the estimate, `band` is SAME's half-width (min effect or spread):
//   low > 0 and estimate >= min_effect    -> SLOWER  (a real change, big enough to count)
//   high < 0 and estimate <= -min_effect  -> FASTER
//   -band < low, high < band              -> SAME
//   otherwise                             -> UNKNOWN
// The unpaired rule on pairs (the whole interval beyond the threshold) found 32 of 40 injected 10 %
// changes and 2 of 20 at 5 % on a 2-core runner (results/summarize/verdicts-2026-11-26-abba).
Verdict decide_paired(const LogRatioInterval& interval, double min_effect, double band);

struct CompareLine {
  SeriesKey key;  // benchmark, world_size, the kind's key fields, its size (bytes, shape, rank)
  std::uint64_t size = 0;                // on the kind's size axis, for ordering
  double base_value = 0, new_value = 0;  // geometric means of the run figures: times (us), or rates
  double change = 0;                     // new / base - 1 of the geometric means (rates: base / new - 1): positive is slower
  std::optional<double> change_low, change_high;  // the interval's bounds on `change` (2+ runs a side)
  double threshold = 0;                  // unpaired: the smallest change that counted for this row; paired: SAME's band (fractions)
  std::size_t base_runs = 0, new_runs = 0;
  // The smallest change these runs could call SLOWER (80 % power, the measured spread, alpha);
  // infinite with too few pairs for the signed-rank test.
  std::optional<double> detectable;
  Verdict verdict = Verdict::kUnknown;
  std::string why;                       // for UNKNOWN: too few runs, straddles the threshold, other machine
  std::optional<std::size_t> more_runs;  // UNKNOWN: about how many more runs a side would decide it
  // One-sided p-values that the change is beyond +threshold (slower) or -threshold (faster), or
  // paired, beyond 0; set when the row had enough runs to be judged. Holm's correction runs on them.
  std::optional<double> p_slower, p_faster;
  LogRatioInterval interval;             // for the runs-needed estimate and the detectable change after the correction
  // The benchmark as a whole (key fields "*", size "all"): each run's geometric mean over every row
  // both sides share. Rows of one run move together, so this figure is steadier than any one row.
  bool overall = false;
  // --recordings: how many recordings BASE's runs of this row come from, and whether its SLOWER was
  // capped at UNKNOWN because they were too few.
  std::size_t base_recordings = 0;
  bool slower_capped = false;
};

// --recordings: what BASE's recordings were, for the note and the JSON.
struct BaselineRecordings {
  std::vector<Recording> recordings;  // earliest first
  std::size_t capped = 0;             // rows whose SLOWER was capped at UNKNOWN
};

struct CompareResult {
  std::vector<CompareLine> lines;
  std::vector<std::string> only_in_base, only_in_new;  // row descriptions without a partner
  std::string measure = "us";  // what base and new values are: "us" (time), or the rate's key (tflops, ...)
  std::string figure;          // which run-level figure was used, in words
  bool paired = false;         // the intervals are paired (runs matched by file name)
  std::optional<std::string> machine_mismatch;  // set: every verdict is UNKNOWN, and this says why
  std::vector<std::string> notes;               // e.g. NEW runs with an injected slowdown
  std::vector<std::string> state_set_aside;     // runs set aside by the state guard (unpaired), their paths
  std::optional<BaselineRecordings> recordings;  // --recordings
  bool any_slower() const;
  std::size_t count(Verdict verdict) const;
  std::optional<std::size_t> more_runs() const;  // the most any UNKNOWN row asks for
  std::optional<double> detectable() const;      // the benchmark as a whole's, else the largest finite row's
};

// Rows match on the key above (tags and env may differ: A/A runs carry different tags). BASE and
// NEW must hold the same kind of rows and a BASE report must not carry an injected slowdown
// (InputError otherwise). Each report is one run; a row that appears several times in one report
// (cycles, -N) gives that run the same statistic over them. A run's figure is options.figure
// (figure.h); rows without timings (probes) use their headline rate.
CompareResult compare_reports(const std::vector<LoadedReport>& base, const std::vector<LoadedReport>& candidate,
                              const CompareOptions& options);

// Sets every verdict to UNKNOWN with `reason` (BASE and NEW measured on different machines).
void mark_machine_mismatch(CompareResult& result, const std::string& reason);

// The value of a report's context.options.inject_slowdown_percent, when it is a number > 0.
std::optional<double> injected_slowdown_percent(const report::Report& report);

Document compare_document(const CompareResult& result, const CompareOptions& options);

}  // namespace collbench::summarize
