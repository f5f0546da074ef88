#include "summarize/models/model_trace.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include "core/printable.h"
#include "summarize/common/input_error.h"

namespace collbench::summarize {
namespace {

using replay::TraceCall;
using replay::TraceCollective;

// The series a call is priced with, by the benchmark that measures it and what it moves.
struct SeriesWanted {
  std::string benchmark;  // the collective's program: all_reduce, sendrecv, ...
  std::string dtype;
  std::string op;  // "" where the collective has none
};

SeriesWanted series_wanted(const TraceCall& call) {
  switch (call.collective) {
    case TraceCollective::kBarrier: return {"all_reduce", "float32", "sum"};
    case TraceCollective::kSend: case TraceCollective::kRecv: return {"sendrecv", std::string(to_string(call.dtype)), ""};
    default:
      return {std::string(replay::to_string(call.collective)), std::string(to_string(call.dtype)),
              replay::reduces(call.collective) ? std::string(to_string(call.op)) : ""};
  }
}

std::string key_value(const SeriesKey& key, const char* name) {
  for (const auto& [field, value] : key) {
    if (field == name) return value;
  }
  return "";
}

// The model's series for `wanted`: of the benchmark's, the one of the call's dtype, then op, then
// out-of-place placement (replay's calls are out of place), as many of these as some series has;
// nullptr where the benchmark has none. Several left that differ in backend or algorithm would be
// two answers: refused, naming them.
const SeriesModel* series_for(const Model& model, const SeriesWanted& wanted) {
  std::vector<const SeriesModel*> candidates;
  int best = -1;
  for (const SeriesModel& series : model.series) {
    if (key_value(series.key, "benchmark") != wanted.benchmark) continue;
    const int score = 4 * (key_value(series.key, "dtype") == wanted.dtype) + 2 * (wanted.op.empty() || key_value(series.key, "op") == wanted.op) +
                      (key_value(series.key, "placement") == "out");
    if (score > best) candidates.clear();
    if (score >= best) {
      best = score;
      candidates.push_back(&series);
    }
  }
  if (candidates.empty()) return nullptr;
  std::set<std::pair<std::string, std::string>> configurations;
  for (const SeriesModel* series : candidates) configurations.emplace(key_value(series->key, "backend"), key_value(series->key, "algorithm"));
  if (configurations.size() > 1) {
    std::string named;
    for (const auto& [backend, algorithm] : configurations) named += (named.empty() ? "" : ", ") + backend + " " + algorithm;
    throw InputError("model predict --trace: the model has " + std::to_string(configurations.size()) + " fits of " + wanted.benchmark +
                     " " + wanted.dtype + " (" + named + "): fit a model from one backend's and algorithm's reports");
  }
  return candidates.front();
}

// The bytes a call is priced at: nccl-tests' size of its collective (a barrier's one float32).
std::uint64_t priced_bytes(const TraceCall& call, const replay::Trace& trace) {
  return call.collective == TraceCollective::kBarrier ? 4 : replay::payload_bytes(call, trace);
}

int group_size_of(const TraceCall& call, const replay::Trace& trace) {
  return replay::is_point_to_point(call.collective) ? 2 : static_cast<int>(trace.groups.at(call.group).ranks.size());
}

// The placement of a group of `ranks`: the options' hosts where the group spans several of them,
// else one host (a group within a host: tensor parallelism, a pipeline's pair at a host's edge
// aside).
PredictOptions options_at(const PredictOptions& options, int ranks) {
  PredictOptions at = options;
  at.world_size = ranks;
  at.sizes.clear();
  if (at.ranks_per_host >= ranks) {
    at.ranks_per_host = 0;
    at.inter_latency_us.reset();
    at.inter_bandwidth_gbps.reset();
  }
  return at;
}

}  // namespace

TracePrediction predict_trace(const Model& model, const replay::Trace& trace, const PredictOptions& options) {
  check_predict_options(options);
  TracePrediction prediction;
  prediction.world_size = trace.world_size;
  using RowKey = std::tuple<std::string, std::string, int>;  // collective, dtype, group size
  struct RowSums {
    std::uint64_t rank_calls = 0, rank_bytes = 0;
    double call_us = 0;
    std::map<int, Prediction> by_rank;  // each rank's calls summed
    const SeriesModel* series = nullptr;
  };
  std::map<RowKey, RowSums> sums;
  std::map<std::pair<const SeriesModel*, int>, std::unique_ptr<SeriesPredictor>> predictors;
  std::map<int, Prediction> rank_sums;
  std::set<std::string> unpriced;
  for (const auto& [rank, calls] : trace.sequences) {
    Prediction& rank_sum = rank_sums[rank];
    for (const TraceCall& call : calls) {
      const bool barrier = call.collective == TraceCollective::kBarrier;
      const int ranks = group_size_of(call, trace);
      RowSums& row = sums[{std::string(replay::to_string(call.collective)), barrier ? "none" : std::string(to_string(call.dtype)), ranks}];
      row.rank_calls += 1;
      row.rank_bytes += barrier ? 0 : replay::payload_bytes(call, trace);
      const SeriesWanted wanted = series_wanted(call);
      const SeriesModel* series = series_for(model, wanted);
      if (!series) {
        unpriced.insert(wanted.benchmark);
        prediction.unpriced_calls += 1;
        continue;
      }
      row.series = series;
      std::unique_ptr<SeriesPredictor>& predictor = predictors[{series, ranks}];
      if (!predictor) predictor = std::make_unique<SeriesPredictor>(*series, options_at(options, ranks));
      const Prediction priced = predictor->at(priced_bytes(call, trace));
      prediction.priced_calls += 1;
      row.call_us += priced.time_us;
      Prediction& in_row = row.by_rank[rank];
      for (Prediction* sum : {&in_row, &rank_sum}) {
        sum->time_us += priced.time_us;
        sum->low_us += priced.low_us;
        sum->high_us += priced.high_us;
      }
    }
  }
  for (const auto& [key, row] : sums) {
    const auto& [collective, dtype, ranks] = key;
    const bool point_to_point = collective == "send" || collective == "recv";
    const std::uint64_t issuers = point_to_point ? 1 : static_cast<std::uint64_t>(ranks);
    TraceRowPrediction out{collective, dtype, ranks, row.rank_calls / issuers, row.rank_bytes / issuers, {}, {}, {}, {}, ""};
    if (row.series) {
      out.call_us = row.call_us / static_cast<double>(row.rank_calls);
      const auto slowest = std::max_element(row.by_rank.begin(), row.by_rank.end(),
                                            [](const auto& a, const auto& b) { return a.second.time_us < b.second.time_us; });
      out.total_us = slowest->second.time_us;
      out.total_low_us = slowest->second.low_us;
      out.total_high_us = slowest->second.high_us;
      out.series = describe_key(row.series->key);
    }
    prediction.rows.push_back(std::move(out));
  }
  for (const auto& [rank, sum] : rank_sums) {
    if (sum.time_us < prediction.sequence_us) continue;
    prediction.sequence_us = sum.time_us;
    prediction.sequence_low_us = sum.low_us;
    prediction.sequence_high_us = sum.high_us;
  }
  prediction.notes.push_back("each rank's calls one after another, each waited for (as replay_perf issues them); the sequence is the slowest rank's sum, low and high its calls' intervals' ends summed");
  for (const std::string& benchmark : unpriced) {
    prediction.notes.push_back("not priced: the trace's " + printable(benchmark) + " calls (the model has no " + printable(benchmark) +
                               " series; fit it from " + printable(benchmark) + "_perf reports too); the sequence leaves them out");
  }
  std::set<std::string> seen;
  for (const auto& [at, predictor] : predictors) {
    for (const std::string& note : predictor->notes()) {
      if (seen.insert(note).second) prediction.notes.push_back(note);
    }
  }
  return prediction;
}

Document trace_prediction_document(const TracePrediction& prediction, const std::string& trace_name) {
  Document document;
  Table table;
  table.title = "Predicted communication of " + trace_name + " at " + std::to_string(prediction.world_size) + " ranks, per pass";
  table.columns = {{"collective"}, {"dtype"}, {"group_size"}, {"calls"}, {"bytes"}, {"call_us", 2}, {"total_us", 2}, {"low_us", 2},
                   {"high_us", 2}, {"series"}};
  Table::Group group{{}, {}};
  const auto number = [](const std::optional<double>& value) { return value ? nlohmann::json(*value) : nlohmann::json(nullptr); };
  std::uint64_t calls = 0, bytes = 0;
  for (const TraceRowPrediction& row : prediction.rows) {
    calls += row.calls;
    bytes += row.bytes;
    group.rows.push_back({row.collective, row.dtype, row.group_size, row.calls, row.bytes, number(row.call_us), number(row.total_us),
                          number(row.total_low_us), number(row.total_high_us), row.series.empty() ? "none" : row.series});
  }
  const bool priced = prediction.priced_calls > 0;  // else no figure at all, not 0
  group.rows.push_back({"sequence", "all", prediction.world_size, calls, bytes, nullptr, priced ? nlohmann::json(prediction.sequence_us) : nullptr,
                        priced ? nlohmann::json(prediction.sequence_low_us) : nullptr, priced ? nlohmann::json(prediction.sequence_high_us) : nullptr,
                        prediction.unpriced_calls > 0 ? "some calls not priced" : "every call priced"});
  table.groups.push_back(std::move(group));
  document.tables.push_back(std::move(table));
  document.notes = prediction.notes;
  return document;
}

}  // namespace collbench::summarize
