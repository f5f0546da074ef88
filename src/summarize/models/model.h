// collbench model: latency-bandwidth (Hockney) models fitted from a user's own collective sweeps,
// and predictions from them for world sizes, sizes and links that were not measured.
//
// Per series (benchmark, backend, algorithm, dtype, op, root, placement):
//  - per world size, t(m) = alpha + m / beta, piecewise where the protocol changes with size (an
//    eager limit): the breakpoints are chosen from the data by a penalised fit (BIC);
//  - across world sizes, the algorithm's cost t(p, m) = a(p) alpha + b(p) m / beta, for the form the
//    row's algorithm names (ring, recursive doubling, binomial tree, pairwise, ...), or, for
//    "default", the form that fits best, said so;
//  - one alpha and beta per protocol segment: a protocol (an eager limit) switches on the size of
//    the message each step sends (m/p for a ring, m for recursive doubling), not on m, so the
//    per-world-size breakpoints, moved to the message per step, split the fit across world sizes
//    into segments (kept where they lower the BIC), and a prediction prices each size with the
//    segment its message per step falls in.
// Fits are weighted least squares on relative error (each point's residual divided by its time),
// so microsecond and second points count alike; every parameter gets a bootstrap interval.
//
// Two levels: where a report's ranks span hosts (context.ranks[].host), every step of the
// algorithm is costed on the link it crosses. A step in which some pair of ranks sits on two hosts
// is an inter-host step, bounded by the link between hosts; its bytes are multiplied by the number
// of ranks of one host that send across at once (they share the host's link). The other steps are
// intra-host steps; a ring's steps are one chain, whose hops pay each its own link's alpha (see
// AlgorithmStep::chained). Intra-host and inter-host alpha and beta are fitted together
// (non-negative least squares on relative error), from single-host reports and reports that span
// hosts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "summarize/common/document.h"
#include "summarize/common/load.h"
#include "summarize/plots/plot.h"
#include "summarize/common/series.h"

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
  int hosts = 1;  // the hosts the ranks ran on
  std::vector<HockneyPiece> pieces;  // in size order; breakpoints are the pieces' boundaries
  std::vector<std::pair<std::uint64_t, double>> measured;  // the fitted (size, time us); empty in older model files
  // The library's own estimate per size (NCCL's ncclGroupSimulateEnd, median over runs), where the
  // rows carry one: shown beside the measured time and the fit.
  std::vector<std::pair<std::uint64_t, double>> library_estimates;
};

// One step of an algorithm, as its ranks exchange: which rank sends to which, and the share of
// the message each sender sends. `count` identical steps are one entry (a ring's 2(p-1)).
struct AlgorithmStep {
  enum class Pattern {
    kShift,      // every rank r sends to (r + distance) mod p
    kExchange,   // every rank r sends to r xor distance (when below p)
    kTreeDown,   // ranks r = 0 mod 2*distance send to r + distance (binomial broadcast, scatter)
    kTreeUp,     // ranks r = distance mod 2*distance send to r - distance (binomial reduce, gather)
    kFromRoot,   // the root sends to rank `distance` (linear broadcast, scatter)
    kToRoot,     // rank `distance` sends to the root (linear reduce, gather)
  };
  double count = 1;
  double share = 1;  // of the message's bytes, per sender
  Pattern pattern = Pattern::kShift;
  std::int64_t distance = 1;  // ranks relative to the root
  // The steps form one chain of dependent transfers with no step-wide wait (a pipelined ring: rank
  // r forwards what it got from r - 1 as soon as it has it). Their latency adds up along the chain,
  // so only the hops of the chain that cross hosts pay the inter-host alpha; their bytes still pass
  // every link once per step, so the bandwidth term is the slowest link's.
  bool chained = false;
};

// a(p) and b(p) of an algorithm's cost a(p) alpha + b(p) m / beta, and its steps: the sum of the
// steps' counts is a(p) and of count * share is b(p).
struct Placement;
struct StepCoefficients;
struct AlgorithmForm {
  std::string name;  // ring, recursive_doubling, binomial_tree, ompi_binomial, pairwise, linear, direct
  double (*latency_steps)(int ranks);
  double (*bandwidth_share)(int ranks);
  std::vector<AlgorithmStep> (*steps)(int ranks);
  // A form whose cost is not a sum of steps (a tree whose transfers overlap) costs a placement
  // itself; null for the step forms. mean_over_ranks: the figure is the mean of the ranks' times
  // (-a 1), not the slowest rank's.
  StepCoefficients (*placed)(const Placement& placement, int root, bool mean_over_ranks) = nullptr;
};

struct LinkParameters {
  ParameterInterval alpha_us;
  ParameterInterval beta_gbps;
};

struct BootstrapDraw {
  double alpha_us = 0, beta_gbps = 0;              // within a host (or the only level)
  double inter_alpha_us = 0, inter_beta_gbps = 0;  // between hosts, when fitted (0 otherwise)
};

// The parameters for messages per step above a protocol breakpoint (an eager limit).
struct ProtocolSegment {
  std::uint64_t above_step_bytes = 0;  // used where the message per step is above this
  ParameterInterval alpha_us;
  ParameterInterval beta_gbps;
  std::optional<LinkParameters> inter;
  std::vector<BootstrapDraw> bootstrap;
};

struct AcrossWorldSizes {
  std::string form;            // the AlgorithmForm's name
  bool chosen_by_fit = false;  // the rows said "default": the best-fitting form was taken
  // Within a host; the only level when every report ran on one host. When no report had two ranks
  // on one host (intra_measured false), these repeat the inter-host values.
  ParameterInterval alpha_us;
  ParameterInterval beta_gbps;
  bool intra_measured = true;
  std::optional<LinkParameters> inter;  // between hosts: fitted from reports whose ranks span hosts
  std::vector<BootstrapDraw> bootstrap;  // for intervals of predictions
  double rms_relative_error = 0;
  // The fields above cost messages per step up to the first breakpoint (all of them when this is
  // empty); each entry costs those above its breakpoint, in size order.
  std::vector<ProtocolSegment> larger_messages;
};

struct SeriesModel {
  SeriesKey key;  // benchmark first, then the collective row's key fields
  std::string bus_factor;  // "2(p-1)/p", "(p-1)/p" or "1", read from the rows
  std::string time_aggregation = "mean";  // the rows' -a: mean over ranks, or max (the slowest rank)
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

// Where ranks run: the host of every rank, hosts numbered from 0.
struct Placement {
  std::vector<int> host_of_rank;
  int hosts = 1;
  int block_ranks_per_host = 0;  // > 0: hosts hold this many consecutive ranks each (mpirun's default)
  int world_size() const { return static_cast<int>(host_of_rank.size()); }
};
Placement block_placement(int world_size, int ranks_per_host);  // ranks_per_host 0: one host

// An algorithm's cost at a placement, as t = intra_steps alpha + intra_bytes m / beta +
// inter_steps alpha' + inter_bytes m / beta' (the bytes count every sender that shares a host's
// link). The mixed_* terms are the part of the inter-host steps in which some pairs stay within a
// host (bytes once per sender, and as inter_bytes counts them): a prediction costs those steps at
// the slower of the two links. A chained step (a ring's) has its latency split between the links
// already, so only its bytes are mixed.
struct StepCoefficients {
  double intra_steps = 0, intra_bytes = 0, inter_steps = 0, inter_bytes = 0;
  double mixed_steps = 0, mixed_bytes = 0, mixed_inter_bytes = 0;
};
StepCoefficients step_coefficients(const AlgorithmForm& form, const Placement& placement, int root, bool mean_over_ranks = false);

// Open MPI's binomial broadcast (coll tuned algorithm 6, ompi_coll_base_bcast_intra_binomial) at a
// placement: the tree of ompi_coll_base_topo_build_bmtree (rank i's children are i + 2^k for every
// 2^k above i's highest bit), each rank sending to all its children at once. The bytes that leave
// a host share its link: a hop from host h to host g carries m times the larger of the copies that
// leave h and that enter g over the whole broadcast (they overlap: a host's ranks get the data
// within an intra-host hop of each other). The figure is the slowest rank's arrival (the rank with
// the most inter-host bytes, then hops) or, for the mean over ranks, the mean of each rank's
// finish: a rank finishes when its costliest send has arrived. One segment: Open MPI 4.1 forces
// algorithm 6 with coll_tuned_bcast_algorithm_segmentsize 0, no segmentation.
StepCoefficients ompi_binomial_broadcast(const Placement& placement, int root, bool mean_over_ranks);

// The form Open MPI actually runs: its ring all_reduce (ompi-tuned-4, -5) falls back to recursive
// doubling when the count is below the number of ranks (ompi_coll_base_allreduce_intra_ring).
// `form` itself otherwise. The result refers to `form` or an element of `forms`.
const AlgorithmForm& form_run_at(const AlgorithmForm& form, const std::vector<AlgorithmForm>& forms, const std::string& algorithm,
                                 int ranks, double elements);
// The largest message one step of the form sends, as a share of m: what a protocol switch sees.
double step_message_share(const AlgorithmForm& form, int ranks);

struct LinkCost {
  double time_us = 0, latency_us = 0, bandwidth_us = 0;
};
// Time of `bytes` at `coefficients` with the two links' parameters.
LinkCost cost_of(const StepCoefficients& coefficients, double bytes, double intra_alpha_us, double intra_beta_gbps,
                 double inter_alpha_us, double inter_beta_gbps);

// Throws InputError: not collective rows, one size only, reports of different machines.
Model fit_model(const std::vector<LoadedReport>& reports, unsigned seed = 1);

nlohmann::json model_json(const Model& model);
Model model_from_json(const nlohmann::json& json, const std::string& path);  // throws InputError
Model read_model_file(const std::string& path);                              // throws InputError

struct PredictOptions {
  int world_size = 0;
  int ranks_per_host = 0;                  // 0: every rank on one host
  std::optional<double> inter_latency_us;  // the link between hosts: replaces the fitted inter-host alpha
  std::optional<double> inter_bandwidth_gbps;  // replaces the fitted inter-host beta
  std::vector<std::uint64_t> sizes;        // empty: the fitted sizes
};

// One predicted time of a series, with its interval and what it stands on.
struct Prediction {
  double time_us = 0, low_us = 0, high_us = 0;
  double latency_us = 0, bandwidth_us = 0;  // the two terms of time_us
  bool from_world_size_fit = false;         // measured at this world size and placement: its own Hockney fit
  std::string extrapolated;                 // "", or ranks, size, link, hosts joined by '+'
};

// Throws InputError for options that do not fit (ranks per host above --np, a link without hosts).
void check_predict_options(const PredictOptions& options);

// Predictions of one series at one world size and placement, for any size.
class SeriesPredictor {
 public:
  // Throws InputError when the series can say nothing at options.world_size (fitted at one world
  // size only, and not this one).
  SeriesPredictor(const SeriesModel& series, const PredictOptions& options);
  Prediction at(std::uint64_t bytes) const;
  // What the predictions assumed: the form, the levels fitted or taken from the options.
  std::vector<std::string> notes() const;

 private:
  StepCoefficients coefficients_at(const AlgorithmForm& form) const;  // at the options' placement

  const SeriesModel& series_;
  PredictOptions options_;
  const WorldSizeFit* same_world_ = nullptr;  // used when no link is overridden
  std::vector<AlgorithmForm> forms_;
  int form_index_ = -1;  // the fitted form in forms_
  double element_bytes_ = 0;  // of the series' dtype; 0 when unknown (no fallback by count)
  StepCoefficients coefficients_;
  int fitted_largest_world_ = 0;
  bool spans_hosts_ = false;
};

Document predict_document(const Model& model, const PredictOptions& options);
// model predict --plot: per series, each fitted world size's measured points and fit, and the
// prediction at the options with its interval. Throws InputError as predict_document does.
std::vector<ModelPlot> model_plots(const Model& model, const PredictOptions& options);
Document fit_document(const Model& model);

}  // namespace collbench::summarize
