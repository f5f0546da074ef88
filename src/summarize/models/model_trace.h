// collbench model predict --trace: a recorded job's communication priced by a fitted model (model.h)
// at another number of ranks, per collective and for the whole sequence (issue 61). The trace is
// read and scaled as replay_perf reads and scales it (workloads/replay/report: trace_readers.h,
// trace_scale.h), so a prediction and a replay at --scale of one trace are of the same calls.
//
// What is priced, as replay_perf issues the calls: each rank's calls one after another, each waited
// for (no overlap of communication with compute or of one call with another); a call's time is the
// model's series of its collective at its group's size and its bytes (nccl-tests' size: all_gather's
// gathered buffer); a send and a receive each the sendrecv series at 2 ranks; a barrier a 4-byte
// float32 all_reduce. The whole sequence is the slowest rank's sum. Calls of a collective the model
// has no series for are counted and named, never priced at 0 silently.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "summarize/common/document.h"
#include "summarize/models/model.h"
#include "workloads/replay/report/trace.h"

namespace collbench::summarize {

// One collective, dtype and group size of the trace, priced.
struct TraceRowPrediction {
  std::string collective, dtype;
  int group_size = 0;
  std::uint64_t calls = 0;  // per pass: a collective once for its group, a send or receive once for its rank
  std::uint64_t bytes = 0;  // their bytes, counted as the calls are
  // Per call (mean), and per pass (the rank whose calls of this row take longest); nullopt where no
  // series prices the collective.
  std::optional<double> call_us, total_us, total_low_us, total_high_us;
  std::string series;  // the model's series that priced it ("" where none)
};

struct TracePrediction {
  int world_size = 0;
  std::vector<TraceRowPrediction> rows;  // by collective, dtype and group size
  double sequence_us = 0, sequence_low_us = 0, sequence_high_us = 0;  // the slowest rank's priced calls
  std::uint64_t priced_calls = 0, unpriced_calls = 0;  // rank calls a series prices, and those none does
  std::vector<std::string> notes;
};

// `trace` as replay_perf would run it (scaled already: trace_scale.h); `options` the placement and
// links (its world_size is set per call from the call's group). Throws InputError where a series
// the trace needs is ambiguous (several backends or algorithms fitted for one collective and dtype).
TracePrediction predict_trace(const Model& model, const replay::Trace& trace, const PredictOptions& options);

Document trace_prediction_document(const TracePrediction& prediction, const std::string& trace_name);

}  // namespace collbench::summarize
