// A stored baseline made of recordings (compare --recordings; scripts/ci-perf.sh --update-baseline
// adds one each time): the runs of one recording were made within a minute and share the machine's
// level of that minute, which moves more than that over minutes and days (issue 65: a baseline
// recorded 16 s before the check, on the same build, called broadcast +13.4 % SLOWER). So the
// recording, not the run, is the baseline's unit of evidence: each recording gives one figure per
// row (the mean of its runs' log figures), and the unpaired verdict is judged against the spread
// between recordings.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "summarize/common/load.h"

namespace collbench::summarize {

// A baseline needs runs from this many recordings before it may call a row SLOWER. One recording
// has no spread between recordings at all; two have one degree of freedom, whose spread can come
// out at a sixteenth of the true one 5 % of the time (chi-square, 1 df). Three are the fewest that
// give a spread at all robust, and the same floor compare already puts on runs a side (min_runs):
// the recording is the baseline's run. With fewer, SLOWER is capped at UNKNOWN; SAME and FASTER,
// which fail no CI job, are judged as before.
inline constexpr std::size_t kFewestRecordings = 3;

// Where a recording lives in a stored baseline: BASELINE/recording-<UTC time>/run-K/*.json.
inline constexpr const char* kRecordingPrefix = "recording-";

// The recording a report belongs to: the nearest folder above it named recording-*, or "" for a
// report outside any (a baseline from before recordings, or a plain folder of runs: one recording).
std::string recording_of(const std::string& report_path);

struct Recording {
  std::string name;     // its folder ("" for runs outside any recording-* folder)
  std::string started;  // the earliest context.start_time of its runs
  std::size_t reports = 0;  // one a run of each benchmark
};

// The recordings the reports come from, earliest first.
std::vector<Recording> recordings_of(const std::vector<LoadedReport>& reports);

}  // namespace collbench::summarize
