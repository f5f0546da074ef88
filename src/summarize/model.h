// collbench model: latency-bandwidth (Hockney) models fitted from a user's own collective sweeps,
// and predictions from them for world sizes, sizes and links that were not measured.
//
// Per series (benchmark, backend, algorithm, dtype, op, root, placement):
//  - per world size, t(m) = alpha + m / beta, piecewise where the protocol changes with size (an
//    eager limit): the breakpoints are chosen from the data by a penalised fit (BIC);
//  - across world sizes, the algorithm's cost t(p, m) = a(p) alpha + b(p) m / beta, for the form the
//    row's algorithm names (ring, recursive doubling, binomial tree, pairwise, ...), or, for
//    "default", the form that fits best, said so.
// Fits are weighted least squares on relative error (each point's residual divided by its time),
// so microsecond and second points count alike; every parameter gets a bootstrap interval.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "summarize/document.h"
#include "summarize/load.h"
#include "summarize/series.h"

namespace collbench::summarize {

struct ParameterInterval {
  double value = 0, low = 0, high = 0;
};

// t = alpha_us + bytes / beta_bytes_per_us on [from_bytes, to_bytes].
struct HockneyPiece {
  std::uint64_t from_bytes = 0, to_bytes = 0;
  ParameterInterval alpha_us;
  ParameterInterval beta_gbps;  // beta in GB/s (1e9 B/s), as every bandwidth collbench prints
  int points = 0;
  double rms_relative_error = 0;
};

struct WorldSizeFit {
  int world_size = 0;
  std::vector<HockneyPiece> pieces;  // in size order; breakpoints are the pieces' boundaries
};

// a(p) and b(p) of an algorithm's cost a(p) alpha + b(p) m / beta.
struct AlgorithmForm {
  std::string name;  // ring, recursive_doubling, binomial_tree, pairwise, linear, direct
  double (*latency_steps)(int ranks);
  double (*bandwidth_share)(int ranks);
};

struct AcrossWorldSizes {
  std::string form;            // the AlgorithmForm's name
  bool chosen_by_fit = false;  // the rows said "default": the best-fitting form was taken
  ParameterInterval alpha_us;
  ParameterInterval beta_gbps;
  std::vector<std::pair<double, double>> bootstrap;  // (alpha_us, beta_gbps) draws, for intervals of predictions
  double rms_relative_error = 0;
};

struct SeriesModel {
  SeriesKey key;  // benchmark first, then the collective row's key fields
  std::string bus_factor;  // "2(p-1)/p", "(p-1)/p" or "1", read from the rows
  std::uint64_t smallest_bytes = 0, largest_bytes = 0;
  std::vector<WorldSizeFit> per_world_size;
  std::optional<AcrossWorldSizes> across;  // needs two world sizes or more
  std::vector<std::string> notes;
};

struct Model {
  std::string figure = "p10";  // the per-row time used: p10, or the minimum below 10 iterations
  std::string machine;          // what the reports say they ran on (CPU or GPU, hosts)
  std::vector<std::string> sources;
  std::vector<SeriesModel> series;
};

// The forms the cost model knows, for a benchmark (empty for benchmarks it does not apply to).
std::vector<AlgorithmForm> algorithm_forms(const std::string& benchmark);

// Throws InputError: not collective rows, one size only, reports of different machines.
Model fit_model(const std::vector<LoadedReport>& reports, unsigned seed = 1);

nlohmann::json model_json(const Model& model);
Model model_from_json(const nlohmann::json& json, const std::string& path);  // throws InputError

struct PredictOptions {
  int world_size = 0;
  int ranks_per_host = 0;                  // 0: every rank on one host
  std::optional<double> inter_latency_us;  // the link between hosts, when it differs from the fit's
  std::optional<double> inter_bandwidth_gbps;
  std::vector<std::uint64_t> sizes;        // empty: the fitted sizes
};

Document predict_document(const Model& model, const PredictOptions& options);
Document fit_document(const Model& model);

}  // namespace collbench::summarize
