#include "summarize/model.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <tuple>

#include "core/dtype.h"
#include "summarize/figure.h"
#include "summarize/fingerprint.h"
#include "summarize/input_error.h"

namespace collbench::summarize {
namespace {

using nlohmann::json;

constexpr int kBootstrapDraws = 200;
constexpr int kModelVersion = 2;  // 2: protocol segments across world sizes, the rows' time aggregation
// The smallest inverse bandwidth a fit may return (us per byte): 1e6 GB/s, "no bandwidth term".
constexpr double kSmallestGamma = 1e-9;

double log2_steps(int ranks) { return ranks <= 1 ? 0 : std::ceil(std::log2(static_cast<double>(ranks))); }
double twice_log2_steps(int ranks) { return 2 * log2_steps(ranks); }
double ring_all_reduce_steps(int ranks) { return 2.0 * (ranks - 1); }
double ring_all_reduce_share(int ranks) { return 2.0 * (ranks - 1) / ranks; }
double all_but_one(int ranks) { return ranks - 1.0; }
double all_but_one_share(int ranks) { return (ranks - 1.0) / ranks; }
double one(int) { return 1; }
double half_log2_steps(int ranks) { return log2_steps(ranks) / 2; }
double scatter_allgather_steps(int ranks) { return log2_steps(ranks) + ranks - 1.0; }

// The steps of each form, so a step can be costed on the link it crosses. Shares are normalised so
// that the steps add up to the form's a(p) and b(p) for every p (tested), powers of two or not.
using Step = AlgorithmStep;
using Pattern = AlgorithmStep::Pattern;
int log2_count(int ranks) { return static_cast<int>(log2_steps(ranks)); }
std::int64_t power_of_two(int exponent) { return std::int64_t{1} << exponent; }

std::vector<Step> ring_all_reduce_steps_of(int p) {
  if (p <= 1) return {};
  return {{2.0 * (p - 1), 1.0 / p, Pattern::kShift, 1, true}};
}
std::vector<Step> ring_steps_of(int p) {  // all_gather, reduce_scatter: p - 1 steps of m/p
  if (p <= 1) return {};
  return {{p - 1.0, 1.0 / p, Pattern::kShift, 1, true}};
}
// One step at each distance 2^k, nearest first (farthest first when `farthest_first`), each
// sender sending `share` of the message.
std::vector<Step> doubling_steps_of(int p, double share, Pattern pattern, bool farthest_first = false) {
  std::vector<Step> steps;
  const int levels = log2_count(p);
  for (int k = 0; k < levels; ++k) steps.push_back({1, share, pattern, power_of_two(farthest_first ? levels - 1 - k : k)});
  return steps;
}
// The same, the step at distance 2^k carrying the 2^k blocks gathered so far.
std::vector<Step> doubling_blocks_steps_of(int p, Pattern pattern, bool farthest_first = false) {
  std::vector<Step> steps;
  const int levels = log2_count(p);
  const double norm = (p - 1.0) / p / (std::ldexp(1.0, levels) - 1);
  for (int i = 0; i < levels; ++i) {
    const int k = farthest_first ? levels - 1 - i : i;
    steps.push_back({1, norm * std::ldexp(1.0, k), pattern, power_of_two(k)});
  }
  return steps;
}
std::vector<Step> exchange_steps_of(int p) {  // recursive doubling all_reduce: m in every step
  return doubling_steps_of(p, 1, Pattern::kExchange);
}
// Open MPI's reduce-scatter by recursive halving with distance doubling, then the mirrored
// all-gather: the step at distance 2^k carries m / 2^(k+1) each way.
std::vector<Step> halving_doubling_steps_of(int p) {
  std::vector<Step> steps;
  const int levels = log2_count(p);
  const double norm = (p - 1.0) / p / (1 - std::ldexp(1.0, -levels));
  for (int k = 0; k < levels; ++k) steps.push_back({2, norm * std::ldexp(1.0, -k - 1), Pattern::kExchange, power_of_two(k)});
  return steps;
}
// Binomial broadcast: the farthest ranks first, so the data crosses hosts once per host early on.
std::vector<Step> tree_down_steps_of(int p) { return doubling_steps_of(p, 1, Pattern::kTreeDown, true); }
std::vector<Step> tree_up_steps_of(int p) {  // binomial reduce: the nearest ranks first
  return doubling_steps_of(p, 1, Pattern::kTreeUp);
}
// The root and every other rank, one step each (kFromRoot or kToRoot).
std::vector<Step> root_steps_of(int p, double share, Pattern pattern) {
  std::vector<Step> steps;
  for (int peer = 1; peer < p; ++peer) steps.push_back({1, share, pattern, peer});
  return steps;
}
std::vector<Step> linear_broadcast_steps_of(int p) { return root_steps_of(p, 1, Pattern::kFromRoot); }
std::vector<Step> linear_reduce_steps_of(int p) { return root_steps_of(p, 1, Pattern::kToRoot); }
std::vector<Step> linear_scatter_steps_of(int p) { return root_steps_of(p, 1.0 / p, Pattern::kFromRoot); }
std::vector<Step> linear_gather_steps_of(int p) { return root_steps_of(p, 1.0 / p, Pattern::kToRoot); }
// Binomial scatter (halves first, farthest first), then the ring all-gather.
std::vector<Step> scatter_allgather_steps_of(int p) {
  std::vector<Step> steps;
  const int levels = log2_count(p);
  const double norm = p > 1 ? (p - 1.0) / p / (1 - std::ldexp(1.0, -levels)) : 0;
  for (int k = 0; k < levels; ++k) steps.push_back({1, norm * std::ldexp(1.0, -k - 1), Pattern::kTreeDown, power_of_two(levels - 1 - k)});
  for (const auto& step : ring_steps_of(p)) steps.push_back(step);
  return steps;
}
// Recursive doubling all_gather: the step at distance 2^k carries the 2^k blocks gathered so far.
std::vector<Step> doubling_gather_steps_of(int p) { return doubling_blocks_steps_of(p, Pattern::kExchange); }
std::vector<Step> tree_gather_steps_of(int p) {  // binomial gather: subtrees of 2^k blocks, nearest first
  return doubling_blocks_steps_of(p, Pattern::kTreeUp);
}
std::vector<Step> tree_scatter_steps_of(int p) {  // binomial scatter: the mirror of the gather
  return doubling_blocks_steps_of(p, Pattern::kTreeDown, true);
}
std::vector<Step> pairwise_steps_of(int p) {  // step k: rank r sends its m/p block for r + k
  std::vector<Step> steps;
  for (int k = 1; k < p; ++k) steps.push_back({1, 1.0 / p, Pattern::kShift, k});
  return steps;
}
std::vector<Step> bruck_steps_of(int p) {  // step k: half of the blocks travel 2^k ranks on
  return doubling_steps_of(p, 0.5, Pattern::kShift);
}
std::vector<Step> direct_steps_of(int) { return {{1, 1, Pattern::kShift, 1}}; }

// One point of a fit: t = latency_coefficient * alpha + bandwidth_coefficient * gamma, where
// gamma = 1 / beta in microseconds per byte.
struct FitPoint {
  double latency_coefficient = 1;
  double bandwidth_coefficient = 0;  // bytes (times the form's share)
  double time_us = 0;
};

struct LinearFit {
  double alpha_us = 0;
  double gamma = kSmallestGamma;
  double sse = 0;  // of relative residuals
};

double relative_sse(const std::vector<FitPoint>& points, double alpha, double gamma) {
  double sse = 0;
  for (const auto& p : points) {
    const double residual = (p.latency_coefficient * alpha + p.bandwidth_coefficient * gamma - p.time_us) / p.time_us;
    sse += residual * residual;
  }
  return sse;
}

// Weighted least squares on relative error, alpha and gamma kept non-negative.
LinearFit fit_linear(const std::vector<FitPoint>& points) {
  double s_aa = 0, s_ac = 0, s_cc = 0, s_at = 0, s_ct = 0;
  for (const auto& p : points) {
    const double w = 1 / (p.time_us * p.time_us);
    s_aa += w * p.latency_coefficient * p.latency_coefficient;
    s_ac += w * p.latency_coefficient * p.bandwidth_coefficient;
    s_cc += w * p.bandwidth_coefficient * p.bandwidth_coefficient;
    s_at += w * p.latency_coefficient * p.time_us;
    s_ct += w * p.bandwidth_coefficient * p.time_us;
  }
  LinearFit fit;
  const double determinant = s_aa * s_cc - s_ac * s_ac;
  bool solved = false;
  if (determinant > 1e-12 * s_aa * s_cc && s_aa > 0 && s_cc > 0) {
    fit.alpha_us = (s_cc * s_at - s_ac * s_ct) / determinant;
    fit.gamma = (s_aa * s_ct - s_ac * s_at) / determinant;
    solved = fit.alpha_us >= 0 && fit.gamma >= kSmallestGamma;
  }
  if (!solved) {
    // One parameter at its bound: the better of latency only and bandwidth only.
    const LinearFit latency_only{s_aa > 0 ? std::max(0.0, s_at / s_aa) : 0, kSmallestGamma, 0};
    const LinearFit bandwidth_only{0, s_cc > 0 ? std::max(kSmallestGamma, s_ct / s_cc) : kSmallestGamma, 0};
    const double latency_sse = relative_sse(points, latency_only.alpha_us, latency_only.gamma);
    const double bandwidth_sse = relative_sse(points, bandwidth_only.alpha_us, bandwidth_only.gamma);
    fit = latency_sse <= bandwidth_sse ? latency_only : bandwidth_only;
  }
  fit.sse = relative_sse(points, fit.alpha_us, fit.gamma);
  return fit;
}

double gbps_of(double gamma) { return 1e-3 / gamma; }  // bytes/us -> GB/s

// The piece of a world size's fit that holds `bytes` (the nearest at the ends), and its time there.
const HockneyPiece& piece_for(const WorldSizeFit& world, std::uint64_t bytes) {
  const HockneyPiece* piece = &world.pieces.front();
  for (const auto& candidate : world.pieces) {
    if (bytes >= candidate.from_bytes) piece = &candidate;
  }
  return *piece;
}
double fitted_time_us(const WorldSizeFit& world, std::uint64_t bytes) {
  const HockneyPiece& piece = piece_for(world, bytes);
  return piece.alpha_us.value + static_cast<double>(bytes) / (piece.beta_gbps.value * 1e3);
}

double percentile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  if (values.empty()) return 0;
  const double at = q * static_cast<double>(values.size() - 1);
  const auto low = static_cast<std::size_t>(std::floor(at));
  const auto high = std::min(values.size() - 1, low + 1);
  return values[low] + (at - static_cast<double>(low)) * (values[high] - values[low]);
}

// Fits `points` and resamples them (cases, with replacement) for 95% intervals.
struct BootstrappedFit {
  LinearFit fit;
  ParameterInterval alpha_us, beta_gbps;
  std::vector<std::pair<double, double>> draws;  // (alpha_us, beta_gbps)
};
BootstrappedFit bootstrap_fit(const std::vector<FitPoint>& points, std::mt19937& random) {
  BootstrappedFit out;
  out.fit = fit_linear(points);
  std::vector<double> alphas, betas;
  std::uniform_int_distribution<std::size_t> pick(0, points.size() - 1);
  for (int draw = 0; draw < kBootstrapDraws; ++draw) {
    std::vector<FitPoint> sample;
    for (std::size_t i = 0; i < points.size(); ++i) sample.push_back(points[pick(random)]);
    const LinearFit fit = fit_linear(sample);
    alphas.push_back(fit.alpha_us);
    betas.push_back(gbps_of(fit.gamma));
    out.draws.emplace_back(fit.alpha_us, gbps_of(fit.gamma));
  }
  out.alpha_us = {out.fit.alpha_us, percentile(alphas, 0.025), percentile(alphas, 0.975)};
  out.beta_gbps = {gbps_of(out.fit.gamma), percentile(betas, 0.025), percentile(betas, 0.975)};
  return out;
}

// Sizes and their times (median over repeated rows) at one world size.
using SizeTimes = std::vector<std::pair<std::uint64_t, double>>;

std::vector<FitPoint> hockney_points(const SizeTimes& times, std::size_t from, std::size_t to) {
  std::vector<FitPoint> points;
  for (std::size_t i = from; i < to; ++i) points.push_back({1, static_cast<double>(times[i].first), times[i].second});
  return points;
}

// Up to three pieces, each of three sizes or more, the count chosen by BIC on relative error.
std::vector<std::pair<std::size_t, std::size_t>> choose_pieces(const SizeTimes& times) {
  const std::size_t n = times.size();
  const auto piece_sse = [&](std::size_t from, std::size_t to) { return fit_linear(hockney_points(times, from, to)).sse; };
  std::vector<std::pair<std::size_t, std::size_t>> best{{0, n}};
  const double count = static_cast<double>(n);
  const auto criterion = [&](double sse, int pieces) {
    return count * std::log(sse / count + 1e-12) + (3.0 * pieces - 1) * std::log(count);
  };
  double best_score = criterion(piece_sse(0, n), 1);
  constexpr std::size_t kMinimumPiece = 3;
  for (std::size_t cut = kMinimumPiece; cut + kMinimumPiece <= n; ++cut) {
    const double score = criterion(piece_sse(0, cut) + piece_sse(cut, n), 2);
    if (score < best_score) {
      best_score = score;
      best = {{0, cut}, {cut, n}};
    }
    for (std::size_t second = cut + kMinimumPiece; second + kMinimumPiece <= n; ++second) {
      const double three = criterion(piece_sse(0, cut) + piece_sse(cut, second) + piece_sse(second, n), 3);
      if (three < best_score) {
        best_score = three;
        best = {{0, cut}, {cut, second}, {second, n}};
      }
    }
  }
  return best;
}

// The form an algorithm label names, or "" when the label does not say (default, unknown).
std::string form_named_by(const std::string& benchmark, const std::string& algorithm) {
  const std::string tuned = algorithm.rfind("ompi-tuned-", 0) == 0 ? algorithm.substr(11, algorithm.find(' ') - 11) : "";
  if (benchmark == "all_reduce") {
    if (algorithm == "ring" || algorithm == "ring_chunked" || tuned == "4" || tuned == "5") return "ring";
    if (tuned == "3") return "recursive_doubling";
    if (algorithm == "halving_doubling" || tuned == "6") return "halving_doubling";
  } else if (benchmark == "broadcast") {
    if (tuned == "6") return "ompi_binomial";
    if (tuned == "1") return "linear";
    if (tuned == "8" || tuned == "9") return "scatter_allgather";
  } else if (benchmark == "alltoall") {
    if (tuned == "1" || tuned == "2" || tuned == "4") return "pairwise";
    if (tuned == "3") return "bruck";
  } else if (benchmark == "sendrecv") {
    return "direct";
  }
  return "";
}

std::string bus_factor_family(const LoadedReport& loaded, const report::ResultRow& row) {
  const int p = loaded.report.context.world_size;
  if (p <= 1 || row.bus_bandwidth_factor <= 0) return "";
  const double factor = row.bus_bandwidth_factor;
  if (std::abs(factor - 2.0 * (p - 1) / p) < 1e-9 && p != 2) return "2(p-1)/p";
  if (std::abs(factor - (p - 1.0) / p) < 1e-9) return "(p-1)/p";
  if (std::abs(factor - 1) < 1e-9) return p == 2 ? "1 or 2(p-1)/p" : "1";
  return "";
}

double bus_factor_at(const std::string& family, int p) {
  if (p <= 1) return 0;
  if (family == "2(p-1)/p") return 2.0 * (p - 1) / p;
  if (family == "(p-1)/p") return (p - 1.0) / p;
  return 1;
}

std::string machine_of(const std::vector<LoadedReport>& reports) {
  std::set<std::string> devices;
  std::size_t hosts = 0;
  for (const auto& loaded : reports) {
    for (const auto& rank : loaded.report.context.ranks) devices.insert(rank.device);
    hosts = std::max(hosts, loaded.report.context.hosts.size());
  }
  std::string text;
  for (const auto& device : devices) text += (text.empty() ? "" : ", ") + device;
  return text + " on " + (hosts > 1 ? "up to " : "") + std::to_string(hosts) + " host(s)";
}

json interval_json(const ParameterInterval& interval) { return {interval.value, interval.low, interval.high}; }
ParameterInterval interval_from(const json& value, const std::string& what) {
  if (!value.is_array() || value.size() != 3) throw InputError(what + ": expected [value, low, high]");
  for (std::size_t i = 0; i < 3; ++i) {
    if (!value[i].is_number() || !std::isfinite(value[i].get<double>()) || value[i].get<double>() < 0) {
      throw InputError(what + ": expected three non-negative numbers");
    }
  }
  return {value[0].get<double>(), value[1].get<double>(), value[2].get<double>()};
}

// One set of fitted levels as the model file holds it: alpha and beta, the link between hosts
// where it was fitted, and the bootstrap draws (four numbers each with that link, else two).
json levels_json(const ParameterInterval& alpha_us, const ParameterInterval& beta_gbps,
                 const std::optional<LinkParameters>& inter, const std::vector<BootstrapDraw>& bootstrap) {
  json draws = json::array();
  for (const auto& draw : bootstrap) {
    draws.push_back(inter ? json{draw.alpha_us, draw.beta_gbps, draw.inter_alpha_us, draw.inter_beta_gbps}
                          : json{draw.alpha_us, draw.beta_gbps});
  }
  json out = {{"alpha_us", interval_json(alpha_us)}, {"beta_gbps", interval_json(beta_gbps)}, {"bootstrap", draws}};
  if (inter) {
    out["inter_alpha_us"] = interval_json(inter->alpha_us);
    out["inter_beta_gbps"] = interval_json(inter->beta_gbps);
  }
  return out;
}

std::string number_text(double value, const char* format = "%.3g") {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

}  // namespace

std::vector<AlgorithmForm> algorithm_forms(const std::string& benchmark) {
  const AlgorithmForm ring_all_reduce{"ring", ring_all_reduce_steps, ring_all_reduce_share, ring_all_reduce_steps_of};
  const AlgorithmForm recursive_doubling{"recursive_doubling", log2_steps, log2_steps, exchange_steps_of};
  const AlgorithmForm halving_doubling{"halving_doubling", twice_log2_steps, ring_all_reduce_share, halving_doubling_steps_of};
  const AlgorithmForm ring{"ring", all_but_one, all_but_one_share, ring_steps_of};
  if (benchmark == "all_reduce") return {ring_all_reduce, recursive_doubling, halving_doubling};
  if (benchmark == "broadcast") {
    return {{"binomial_tree", log2_steps, log2_steps, tree_down_steps_of},
            {"ompi_binomial", log2_steps, log2_steps, tree_down_steps_of, ompi_binomial_broadcast},
            {"linear", all_but_one, all_but_one, linear_broadcast_steps_of},
            {"scatter_allgather", scatter_allgather_steps, ring_all_reduce_share, scatter_allgather_steps_of}};
  }
  if (benchmark == "reduce") {
    return {{"binomial_tree", log2_steps, log2_steps, tree_up_steps_of}, {"linear", all_but_one, all_but_one, linear_reduce_steps_of}};
  }
  if (benchmark == "all_gather" || benchmark == "reduce_scatter") {
    return {ring, {"recursive_doubling", log2_steps, all_but_one_share, doubling_gather_steps_of}};
  }
  if (benchmark == "alltoall") {
    return {{"pairwise", all_but_one, all_but_one_share, pairwise_steps_of}, {"bruck", log2_steps, half_log2_steps, bruck_steps_of}};
  }
  if (benchmark == "gather") {
    return {{"linear", all_but_one, all_but_one_share, linear_gather_steps_of},
            {"binomial_tree", log2_steps, all_but_one_share, tree_gather_steps_of}};
  }
  if (benchmark == "scatter") {
    return {{"linear", all_but_one, all_but_one_share, linear_scatter_steps_of},
            {"binomial_tree", log2_steps, all_but_one_share, tree_scatter_steps_of}};
  }
  if (benchmark == "sendrecv") return {{"direct", one, one, direct_steps_of}};
  return {};
}

Placement block_placement(int world_size, int ranks_per_host) {
  Placement placement;
  const int per_host = ranks_per_host > 0 && ranks_per_host < world_size ? ranks_per_host : std::max(world_size, 1);
  placement.host_of_rank.resize(static_cast<std::size_t>(std::max(world_size, 0)));
  for (int rank = 0; rank < world_size; ++rank) placement.host_of_rank[static_cast<std::size_t>(rank)] = rank / per_host;
  placement.hosts = world_size > 0 ? (world_size + per_host - 1) / per_host : 1;
  placement.block_ranks_per_host = world_size % per_host == 0 ? per_host : 0;
  return placement;
}

StepCoefficients step_coefficients(const AlgorithmForm& form, const Placement& placement, int root, bool mean_over_ranks) {
  if (form.placed) return form.placed(placement, root, mean_over_ranks);
  const int p = placement.world_size();
  StepCoefficients out;
  const std::vector<Step> steps = form.steps(p);
  if (placement.hosts <= 1) {
    for (const auto& step : steps) {
      out.intra_steps += step.count;
      out.intra_bytes += step.count * step.share;
    }
    return out;
  }
  const int root_rank = root >= 0 && root < p ? root : 0;
  std::vector<int> off_host(static_cast<std::size_t>(placement.hosts), 0);
  std::vector<int> touched;  // hosts counted in this step, reset after it (a step touches few hosts)
  for (const auto& step : steps) {
    for (int h : touched) off_host[static_cast<std::size_t>(h)] = 0;
    touched.clear();
    int sharing = 0, crossings = 0, senders = 0;
    bool intra = false, inter = false;
    // Ranks relative to the root, as the algorithms number them.
    const auto host = [&](std::int64_t relative) { return placement.host_of_rank[static_cast<std::size_t>((relative + root_rank) % p)]; };
    const auto send = [&](std::int64_t from, std::int64_t to) {
      const int from_host = host(from);
      ++senders;
      if (from_host == host(to)) {
        intra = true;
      } else {
        inter = true;
        ++crossings;
        int& count = off_host[static_cast<std::size_t>(from_host)];
        if (count++ == 0) touched.push_back(from_host);
        sharing = std::max(sharing, count);
      }
    };
    const std::int64_t d = step.distance;
    switch (step.pattern) {
      case Pattern::kShift: {
        if (d % p == 0) break;
        // A block placement looks the same from every host under a shift: the first host tells all.
        const std::int64_t first = placement.block_ranks_per_host > 0 && root_rank == 0 ? placement.block_ranks_per_host : p;
        for (std::int64_t r = 0; r < first; ++r) send(r, (r + d) % p);
        break;
      }
      case Pattern::kExchange:
        for (std::int64_t r = 0; r < p; ++r) {
          if ((r ^ d) < p) send(r, r ^ d);
        }
        break;
      case Pattern::kTreeDown:
        for (std::int64_t r = 0; r + d < p; r += 2 * d) send(r, r + d);
        break;
      case Pattern::kTreeUp:
        for (std::int64_t r = d; r < p; r += 2 * d) send(r, r - d);
        break;
      case Pattern::kFromRoot:
        if (d < p) send(0, d);
        break;
      case Pattern::kToRoot:
        if (d < p) send(d, 0);
        break;
    }
    if (!inter) {
      out.intra_steps += step.count;
      out.intra_bytes += step.count * step.share;
      continue;
    }
    if (step.chained) {
      // Along the chain, the share of hops that cross hosts pays the inter-host alpha and the rest
      // the intra-host one; every step's bytes wait for the slowest link (mixed bytes only).
      const double crossing_share = static_cast<double>(crossings) / senders;
      out.inter_steps += step.count * crossing_share;
      out.intra_steps += step.count * (1 - crossing_share);
      out.inter_bytes += step.count * step.share * sharing;
      if (intra) {
        out.mixed_bytes += step.count * step.share;
        out.mixed_inter_bytes += step.count * step.share * sharing;
      }
      continue;
    }
    out.inter_steps += step.count;
    out.inter_bytes += step.count * step.share * sharing;
    if (intra) {
      out.mixed_steps += step.count;
      out.mixed_bytes += step.count * step.share;
      out.mixed_inter_bytes += step.count * step.share * sharing;
    }
  }
  return out;
}

namespace {

// A rank's cost from the root, as coefficients of the two links' alpha and bytes.
struct PathCost {
  double intra_steps = 0, intra_bytes = 0, inter_steps = 0, inter_bytes = 0;
  // Costlier when the link between hosts is much slower than within a host: inter-host bytes,
  // then inter-host hops, then intra-host bytes and hops.
  bool operator<(const PathCost& other) const {
    return std::tie(inter_bytes, inter_steps, intra_bytes, intra_steps) <
           std::tie(other.inter_bytes, other.inter_steps, other.intra_bytes, other.intra_steps);
  }
};

}  // namespace

StepCoefficients ompi_binomial_broadcast(const Placement& placement, int root, bool mean_over_ranks) {
  const int p = placement.world_size();
  StepCoefficients out;
  if (p <= 1) return out;
  const int root_rank = root >= 0 && root < p ? root : 0;
  const auto rank_of = [&](int index) { return (index + root_rank) % p; };  // indices are relative to the root
  const auto host_of = [&](int index) { return placement.host_of_rank[static_cast<std::size_t>(rank_of(index))]; };
  // Children of index i: i + 2^k for every 2^k above i's highest set bit (the root: every 2^k).
  const auto children_of = [&](int index) {
    std::vector<int> children;
    int mask = 1;
    while (mask <= index) mask <<= 1;
    for (; index + mask < p; mask <<= 1) children.push_back(index + mask);
    return children;
  };
  std::vector<int> leaving(static_cast<std::size_t>(placement.hosts), 0), entering(static_cast<std::size_t>(placement.hosts), 0);
  for (int index = 0; index < p; ++index) {
    for (int child : children_of(index)) {
      if (host_of(index) == host_of(child)) continue;
      ++leaving[static_cast<std::size_t>(host_of(index))];
      ++entering[static_cast<std::size_t>(host_of(child))];
    }
  }
  // Arrival at each index, in index order (a parent's index is below its children's).
  std::vector<PathCost> arrival(static_cast<std::size_t>(p));
  for (int index = 0; index < p; ++index) {
    for (int child : children_of(index)) {
      PathCost cost = arrival[static_cast<std::size_t>(index)];
      if (host_of(index) == host_of(child)) {
        cost.intra_steps += 1;
        cost.intra_bytes += 1;
      } else {
        cost.inter_steps += 1;
        cost.inter_bytes += std::max(leaving[static_cast<std::size_t>(host_of(index))], entering[static_cast<std::size_t>(host_of(child))]);
      }
      arrival[static_cast<std::size_t>(child)] = cost;
    }
  }
  const auto add = [&](const PathCost& cost, double weight) {
    out.intra_steps += weight * cost.intra_steps;
    out.intra_bytes += weight * cost.intra_bytes;
    out.inter_steps += weight * cost.inter_steps;
    out.inter_bytes += weight * cost.inter_bytes;
  };
  if (!mean_over_ranks) {
    add(*std::max_element(arrival.begin(), arrival.end()), 1);
    return out;
  }
  for (int index = 0; index < p; ++index) {
    PathCost finish = arrival[static_cast<std::size_t>(index)];
    for (int child : children_of(index)) finish = std::max(finish, arrival[static_cast<std::size_t>(child)]);
    add(finish, 1.0 / p);
  }
  return out;
}

const AlgorithmForm& form_run_at(const AlgorithmForm& form, const std::vector<AlgorithmForm>& forms, const std::string& algorithm, int ranks,
                                 double elements) {
  const bool ompi_ring = algorithm.rfind("ompi-tuned-4", 0) == 0 || algorithm.rfind("ompi-tuned-5", 0) == 0;
  if (form.name != "ring" || !ompi_ring || !(elements > 0) || elements >= ranks) return form;
  for (const auto& other : forms) {
    if (other.name == "recursive_doubling") return other;
  }
  return form;
}

double step_message_share(const AlgorithmForm& form, int ranks) {
  if (form.placed) return 1;  // the broadcast tree sends the whole message (one segment)
  double largest = 0;
  for (const auto& step : form.steps(ranks)) largest = std::max(largest, step.share);
  return largest;
}

LinkCost cost_of(const StepCoefficients& c, double bytes, double intra_alpha_us, double intra_beta_gbps, double inter_alpha_us,
                 double inter_beta_gbps) {
  const double intra_gamma = 1 / (intra_beta_gbps * 1e3), inter_gamma = 1 / (inter_beta_gbps * 1e3);  // us per byte
  LinkCost cost;
  cost.latency_us = c.intra_steps * intra_alpha_us + c.inter_steps * inter_alpha_us;
  cost.bandwidth_us = c.intra_bytes * bytes * intra_gamma + c.inter_bytes * bytes * inter_gamma;
  // Steps with pairs on both links take the slower link's time; inter_* priced them on the link
  // between hosts, so a faster link between hosts than within leaves the intra-host time instead.
  if (c.mixed_steps > 0 || c.mixed_bytes > 0) {
    const double inter_latency = c.mixed_steps * inter_alpha_us, inter_bandwidth = c.mixed_inter_bytes * bytes * inter_gamma;
    const double intra_latency = c.mixed_steps * intra_alpha_us, intra_bandwidth = c.mixed_bytes * bytes * intra_gamma;
    if (intra_latency + intra_bandwidth > inter_latency + inter_bandwidth) {
      cost.latency_us += intra_latency - inter_latency;
      cost.bandwidth_us += intra_bandwidth - inter_bandwidth;
    }
  }
  cost.time_us = cost.latency_us + cost.bandwidth_us;
  return cost;
}

namespace {

// Where a report's ranks ran, from context.ranks[].host (hosts numbered in order of appearance).
Placement placement_of(const LoadedReport& loaded) {
  const auto& context = loaded.report.context;
  const int p = context.world_size;
  Placement placement;
  if (static_cast<int>(context.ranks.size()) == p && p > 0) {
    std::map<std::string, int> numbers;
    std::vector<std::string> order;
    placement.host_of_rank.assign(static_cast<std::size_t>(p), -1);
    for (const auto& rank : context.ranks) {
      if (rank.rank < 0 || rank.rank >= p || placement.host_of_rank[static_cast<std::size_t>(rank.rank)] != -1) {
        throw InputError(loaded.path + ": context.ranks does not list ranks 0 to " + std::to_string(p - 1) + " once each");
      }
      const auto [it, added] = numbers.emplace(rank.host, static_cast<int>(numbers.size()));
      placement.host_of_rank[static_cast<std::size_t>(rank.rank)] = it->second;
    }
    placement.hosts = static_cast<int>(numbers.size());
    const int per_host = p / placement.hosts;
    bool block = p % placement.hosts == 0;
    for (int r = 0; block && r < p; ++r) block = placement.host_of_rank[static_cast<std::size_t>(r)] == r / per_host;
    placement.block_ranks_per_host = block ? per_host : 0;
    return placement;
  }
  const int hosts = std::max<int>(1, static_cast<int>(context.hosts.size()));
  if (hosts > 1) {
    throw InputError(loaded.path + ": its ranks span " + std::to_string(hosts) +
                     " hosts but context.ranks does not say which rank ran where; the two-level model needs it");
  }
  return block_placement(p, 0);
}

// Points of the two-level fit: t = x0 * alpha + x1 * gamma (within a host) + x2 * alpha' + x3 * gamma'.
struct LevelPoint {
  std::array<double, 4> coefficient{};
  double time_us = 0;
};
struct LevelFit {
  std::array<double, 4> x{0, kSmallestGamma, 0, kSmallestGamma};
  double sse = std::numeric_limits<double>::infinity();
  bool separable = true;  // the free columns were independent
};

// Solves the k x k system in place (partial pivoting); false when it is singular.
bool solve(std::vector<std::vector<double>>& a, std::vector<double>& b) {
  const std::size_t n = b.size();
  for (std::size_t column = 0; column < n; ++column) {
    std::size_t pivot = column;
    for (std::size_t row = column + 1; row < n; ++row) {
      if (std::abs(a[row][column]) > std::abs(a[pivot][column])) pivot = row;
    }
    if (!(std::abs(a[pivot][column]) > 1e-10)) return false;
    std::swap(a[pivot], a[column]);
    std::swap(b[pivot], b[column]);
    for (std::size_t row = 0; row < n; ++row) {
      if (row == column) continue;
      const double factor = a[row][column] / a[column][column];
      for (std::size_t k = column; k < n; ++k) a[row][k] -= factor * a[column][k];
      b[row] -= factor * b[column];
    }
  }
  for (std::size_t i = 0; i < n; ++i) b[i] /= a[i][i];
  return true;
}

// Weighted least squares on relative error with alpha >= 0 and gamma >= kSmallestGamma: every
// choice of parameters held at their bound is solved, and the best that keeps the bounds is the
// bounded optimum (four parameters: sixteen choices). Columns outside `used` stay at their bound.
LevelFit fit_levels(const std::vector<LevelPoint>& points, const std::array<bool, 4>& used) {
  const std::array<double, 4> bound{0, kSmallestGamma, 0, kSmallestGamma};
  std::array<double, 4> scale{};  // columns scaled to 1, so the pivot threshold means the same for each
  for (const auto& point : points) {
    for (std::size_t j = 0; j < 4; ++j) scale[j] = std::max(scale[j], std::abs(point.coefficient[j] / point.time_us));
  }
  unsigned every = 0;
  for (std::size_t j = 0; j < 4; ++j) every |= used[j] && scale[j] > 0 ? 1u << j : 0u;
  LevelFit best;
  for (unsigned mask = 0; mask < 16; ++mask) {
    if ((mask & every) != mask) continue;
    std::vector<std::size_t> free;
    for (std::size_t j = 0; j < 4; ++j) {
      if (mask & (1u << j)) free.push_back(j);
    }
    const std::size_t n = free.size();
    std::vector<std::vector<double>> normal(n, std::vector<double>(n, 0));
    std::vector<double> right(n, 0);
    for (const auto& point : points) {
      double target = point.time_us;
      for (std::size_t j = 0; j < 4; ++j) {
        if (!(mask & (1u << j))) target -= point.coefficient[j] * bound[j];
      }
      const double w = 1 / (point.time_us * point.time_us);
      for (std::size_t a = 0; a < n; ++a) {
        const double ca = point.coefficient[free[a]] / scale[free[a]];
        right[a] += w * ca * target;
        for (std::size_t b = 0; b < n; ++b) normal[a][b] += w * ca * point.coefficient[free[b]] / scale[free[b]];
      }
    }
    if (!solve(normal, right)) {
      if (mask == every) best.separable = false;
      continue;
    }
    std::array<double, 4> x = bound;
    bool feasible = true;
    for (std::size_t a = 0; a < n; ++a) {
      x[free[a]] = right[a] / scale[free[a]];
      if (x[free[a]] < bound[free[a]]) feasible = false;
    }
    if (!feasible) continue;
    double sse = 0;
    for (const auto& point : points) {
      double predicted = 0;
      for (std::size_t j = 0; j < 4; ++j) predicted += point.coefficient[j] * x[j];
      const double residual = (predicted - point.time_us) / point.time_us;
      sse += residual * residual;
    }
    if (sse < best.sse) {
      best.x = x;
      best.sse = sse;
    }
  }
  if (!std::isfinite(best.sse)) best.sse = 0;
  return best;
}

struct Group {
  Placement placement;
  SizeTimes times;
};

double element_bytes_of(const std::string& dtype) {
  const auto parsed = parse_dtype(dtype);
  return parsed ? static_cast<double>(dtype_info(*parsed).size_bytes) : 0;
}

// The points of one form across world sizes, each with the largest message one of its steps sends.
struct FormPoints {
  std::vector<LevelPoint> points;
  std::vector<double> step_bytes;
  std::array<bool, 4> used{};
};

struct SegmentedFit {
  std::vector<double> thresholds;  // segment k holds messages per step in (thresholds[k-1], thresholds[k]]
  std::vector<LevelFit> fits;
  std::vector<std::vector<std::size_t>> members;  // the points of each segment
  double sse = 0;
  bool separable = true;
};

std::size_t segment_of(const std::vector<double>& thresholds, double step_bytes) {
  std::size_t segment = 0;
  while (segment < thresholds.size() && step_bytes > thresholds[segment]) ++segment;
  return segment;
}

// Splits the points at up to two thresholds and fits each part on its own. A threshold is a
// message per step that lies in a per-world breakpoint's interval [low, high): the breakpoints the
// per-world Hockney fits found, moved to messages per step. The split is kept where it lowers the
// BIC on relative error, and only where every part has three points or more and can fit every
// parameter the whole can (the same links and levels, told apart as well).
SegmentedFit fit_segmented(const FormPoints& points, const std::vector<std::pair<double, double>>& breaks) {
  std::set<double> candidates;
  for (const double step : points.step_bytes) {
    for (const auto& [low, high] : breaks) {
      if (step >= low && step < high) candidates.insert(step);
    }
  }
  const double n = static_cast<double>(points.points.size());
  std::size_t used_count = 0;
  for (const bool used : points.used) used_count += used ? 1 : 0;
  const auto attempt = [&](const std::vector<double>& thresholds) -> std::optional<SegmentedFit> {
    SegmentedFit fit;
    fit.thresholds = thresholds;
    fit.members.resize(thresholds.size() + 1);
    for (std::size_t i = 0; i < points.points.size(); ++i) fit.members[segment_of(thresholds, points.step_bytes[i])].push_back(i);
    for (const auto& members : fit.members) {
      if (members.size() < 3 && !thresholds.empty()) return std::nullopt;
      std::vector<LevelPoint> part;
      std::array<bool, 4> used{};
      for (const std::size_t i : members) {
        part.push_back(points.points[i]);
        for (std::size_t j = 0; j < 4; ++j) used[j] = used[j] || points.points[i].coefficient[j] > 0;
      }
      if (used != points.used) return std::nullopt;
      const LevelFit one = fit_levels(part, points.used);
      if (!one.separable && !thresholds.empty()) return std::nullopt;
      fit.separable = fit.separable && one.separable;
      fit.sse += one.sse;
      fit.fits.push_back(one);
    }
    return fit;
  };
  const auto criterion = [&](const SegmentedFit& fit) {
    const double parameters = static_cast<double>(used_count * fit.fits.size() + fit.thresholds.size());
    return n * std::log(fit.sse / n + 1e-12) + parameters * std::log(n);
  };
  SegmentedFit best = *attempt({});
  double best_score = criterion(best);
  const std::vector<double> sorted(candidates.begin(), candidates.end());
  // One breakpoint (b == a) or two (a < b).
  for (std::size_t a = 0; a < sorted.size(); ++a) {
    for (std::size_t b = a; b < sorted.size(); ++b) {
      const std::vector<double> thresholds = b == a ? std::vector<double>{sorted[a]} : std::vector<double>{sorted[a], sorted[b]};
      const auto fit = attempt(thresholds);
      if (!fit) continue;
      const double score = criterion(*fit);
      if (score < best_score) {
        best_score = score;
        best = *fit;
      }
    }
  }
  return best;
}

// One segment's parameters with 95 % intervals: its points resampled (cases, with replacement).
ProtocolSegment segment_parameters(const FormPoints& points, const SegmentedFit& fit, std::size_t segment, std::mt19937& random) {
  const auto& members = fit.members[segment];
  std::uniform_int_distribution<std::size_t> pick(0, members.size() - 1);
  std::array<std::vector<double>, 4> values;
  for (int draw = 0; draw < kBootstrapDraws; ++draw) {
    std::vector<LevelPoint> sample;
    for (std::size_t i = 0; i < members.size(); ++i) sample.push_back(points.points[members[pick(random)]]);
    const LevelFit resampled = fit_levels(sample, points.used);
    // x holds alpha, gamma, alpha', gamma': the gammas are kept as GB/s.
    for (std::size_t j = 0; j < 4; ++j) values[j].push_back(j % 2 ? gbps_of(resampled.x[j]) : resampled.x[j]);
  }
  const LevelFit& central = fit.fits[segment];
  const auto interval = [&](std::size_t j, double value) { return ParameterInterval{value, percentile(values[j], 0.025), percentile(values[j], 0.975)}; };
  // A level not measured (no step of these runs prices it) is costed with the other level's fit:
  // an upper bound for the link within a host. A ring's chain can measure the intra-host alpha
  // without its beta (every step's bytes wait for the link between hosts).
  const std::size_t intra_alpha = points.used[0] ? 0 : 2, intra_beta = points.used[1] ? 1 : 3;
  ProtocolSegment out;
  out.above_step_bytes = segment == 0 ? 0 : static_cast<std::uint64_t>(std::floor(fit.thresholds[segment - 1]));
  out.alpha_us = interval(intra_alpha, central.x[intra_alpha]);
  out.beta_gbps = interval(intra_beta, gbps_of(central.x[intra_beta]));
  const bool inter = points.used[2] || points.used[3];
  if (inter) out.inter = LinkParameters{interval(2, central.x[2]), interval(3, gbps_of(central.x[3]))};
  for (int draw = 0; draw < kBootstrapDraws; ++draw) {
    const auto d = static_cast<std::size_t>(draw);
    out.bootstrap.push_back({values[intra_alpha][d], values[intra_beta][d], inter ? values[2][d] : 0, inter ? values[3][d] : 0});
  }
  return out;
}

}  // namespace

Model fit_model(const std::vector<LoadedReport>& reports, unsigned seed) {
  if (reports.empty()) throw InputError("model fit: no report given");
  Model model;
  // Reports of different machines would fit one line through two machines.
  const Fingerprint first = fingerprint_of({reports.front()}, {});
  for (const auto& loaded : reports) {
    if (loaded.report.kind != report::RowKind::kCollective) {
      throw InputError(loaded.path + ": model fits collective reports only (this one holds " + report::row_kind_spec(loaded.report.kind).name +
                       " rows)");
    }
    if (const auto difference = fingerprint_difference(first, fingerprint_of({loaded}, {}))) {
      throw InputError("model fit: the reports come from different machines (" + *difference + "); fit each machine on its own");
    }
    model.sources.push_back(loaded.path);
  }
  model.machine = machine_of(reports);

  // series key -> (world size, hosts) -> size -> times, and where those ranks ran
  using GroupKey = std::pair<int, int>;
  std::map<SeriesKey, std::map<GroupKey, std::map<std::uint64_t, std::vector<double>>>> grouped, estimates;
  std::map<GroupKey, std::pair<Placement, std::string>> placements;
  std::map<SeriesKey, std::string> families;
  std::map<SeriesKey, std::pair<std::string, std::string>> aggregations;  // the rows' -a, and a report that has it
  for (const auto& loaded : reports) {
    const Placement placement = placement_of(loaded);
    const GroupKey group{loaded.report.context.world_size, placement.hosts};
    const auto [known, added] = placements.emplace(group, std::pair{placement, loaded.path});
    if (!added && known->second.first.host_of_rank != placement.host_of_rank) {
      throw InputError("model fit: " + known->second.second + " and " + loaded.path + " place " + std::to_string(group.first) +
                       " ranks on " + std::to_string(group.second) + " hosts differently; fit one placement at a time");
    }
    for (const auto& row : loaded.report.results) {
      // Each row's robust figure (summarize/figure.h): its p10 iteration time, or its minimum
      // when it has too few iterations for the quantile.
      const double time = row.iterations >= static_cast<int>(values_needed(RunFigure::kP10)) ? row.time_us.p10 : row.time_us.min;
      if (!(time > 0) || row.bytes == 0) continue;
      const SeriesKey key{{"benchmark", loaded.report.benchmark}, {"backend", row.backend}, {"algorithm", row.algorithm},
                          {"dtype", row.dtype},  {"op", row.op},          {"root", std::to_string(row.root)},
                          {"placement", row.placement}};
      grouped[key][group][row.bytes].push_back(time);
      if (row.library_estimate_us && *row.library_estimate_us > 0) estimates[key][group][row.bytes].push_back(*row.library_estimate_us);
      const std::string aggregation = row.time_aggregation.empty() ? "mean" : row.time_aggregation;
      const auto [seen, first_seen] = aggregations.emplace(key, std::pair{aggregation, loaded.path});
      if (!first_seen && seen->second.first != aggregation) {
        // A tree's mean over ranks and its slowest rank are two costs: one fit cannot hold both.
        throw InputError("model fit: " + seen->second.second + " and " + loaded.path + " combine the ranks' times differently (-a " +
                         seen->second.first + " and " + aggregation + "); fit one at a time");
      }
      const std::string family = bus_factor_family(loaded, row);
      if (!family.empty() && (families[key].empty() || families[key] == "1 or 2(p-1)/p")) families[key] = family;
    }
  }
  if (grouped.empty()) throw InputError("model fit: no timed row with a size above 0 bytes in the reports");

  std::mt19937 random(seed);
  for (const auto& [key, by_group] : grouped) {
    SeriesModel series;
    series.key = key;
    const std::string& benchmark = key.front().second;
    const int root = std::stoi(key[5].second);
    series.bus_factor = families[key] == "1 or 2(p-1)/p" ? (benchmark == "all_reduce" ? "2(p-1)/p" : "1") : families[key];
    series.time_aggregation = aggregations.at(key).first;
    std::vector<Group> groups;
    series.smallest_bytes = UINT64_MAX;
    for (const auto& [group_key, by_size] : by_group) {
      const auto [world_size, hosts] = group_key;
      SizeTimes times;
      for (const auto& [bytes, values] : by_size) times.emplace_back(bytes, median(values));
      if (times.size() < 2) {
        throw InputError("model fit: " + describe_key(key) + " at world size " + std::to_string(world_size) +
                         " has one size only; a latency-bandwidth fit needs a sweep (-b/-e)");
      }
      series.smallest_bytes = std::min(series.smallest_bytes, times.front().first);
      series.largest_bytes = std::max(series.largest_bytes, times.back().first);
      WorldSizeFit world_fit;
      world_fit.world_size = world_size;
      world_fit.hosts = hosts;
      world_fit.measured = times;
      for (const auto& [bytes, values] : estimates[key][group_key]) world_fit.library_estimates.emplace_back(bytes, median(values));
      for (const auto& [from, to] : choose_pieces(times)) {
        const auto points = hockney_points(times, from, to);
        const BootstrappedFit fit = bootstrap_fit(points, random);
        HockneyPiece piece;
        piece.from_bytes = times[from].first;
        piece.to_bytes = times[to - 1].first;
        piece.alpha_us = fit.alpha_us;
        piece.beta_gbps = fit.beta_gbps;
        piece.points = static_cast<int>(points.size());
        piece.rms_relative_error = std::sqrt(fit.fit.sse / static_cast<double>(points.size()));
        world_fit.pieces.push_back(piece);
      }
      series.per_world_size.push_back(world_fit);
      groups.push_back({placements.at(group_key).first, times});
    }
    const auto forms = algorithm_forms(benchmark);
    if (forms.empty()) {
      series.notes.push_back("no cost form for " + benchmark + ": fitted per world size only");
    } else if (groups.size() < 2) {
      series.notes.push_back("one world size: nothing to extrapolate across world sizes from (measure two or more)");
    } else {
      const std::string named = form_named_by(benchmark, key[2].second);
      const double element = element_bytes_of(key[3].second);
      const bool mean_over_ranks = series.time_aggregation == "mean";
      std::optional<AcrossWorldSizes> best;
      std::string best_segments_note;
      std::string tried;
      for (const auto& form : forms) {
        if (!named.empty() && form.name != named) continue;
        // Each point priced as t = intra alpha, intra bytes, inter alpha, inter bytes coefficients;
        // one host only: the intra-host columns alone.
        FormPoints points;
        std::vector<std::pair<double, double>> breaks;  // per-world breakpoints as messages per step [low, high)
        for (std::size_t g = 0; g < groups.size(); ++g) {
          const auto& group = groups[g];
          const int p = group.placement.world_size();
          for (const auto& [bytes, time] : group.times) {
            const double m = static_cast<double>(bytes);
            const AlgorithmForm& run = form_run_at(form, forms, key[2].second, p, element > 0 ? m / element : 0);
            const StepCoefficients c = step_coefficients(run, group.placement, root, mean_over_ranks);
            const LevelPoint point{{c.intra_steps, c.intra_bytes * m, c.inter_steps, c.inter_bytes * m}, time};
            points.points.push_back(point);
            points.step_bytes.push_back(step_message_share(run, p) * m);
            for (std::size_t j = 0; j < 4; ++j) points.used[j] = points.used[j] || point.coefficient[j] > 0;
          }
          const auto& pieces = series.per_world_size[g].pieces;
          const double share = step_message_share(form, p);
          for (std::size_t i = 0; i + 1 < pieces.size(); ++i) {
            breaks.emplace_back(share * static_cast<double>(pieces[i].to_bytes), share * static_cast<double>(pieces[i + 1].from_bytes));
          }
        }
        const SegmentedFit fit = fit_segmented(points, breaks);
        const double rms = std::sqrt(fit.sse / static_cast<double>(points.points.size()));
        tried += (tried.empty() ? "" : ", ") + form.name + " " + number_text(100 * rms, "%.1f") + "%";
        if (best && rms >= best->rms_relative_error) continue;
        std::mt19937 draws(seed);
        AcrossWorldSizes across;
        across.form = form.name;
        across.chosen_by_fit = named.empty();
        across.rms_relative_error = rms;
        across.intra_measured = points.used[0] && points.used[1];
        for (std::size_t segment = 0; segment < fit.fits.size(); ++segment) {
          const ProtocolSegment parameters = segment_parameters(points, fit, segment, draws);
          if (segment == 0) {
            across.alpha_us = parameters.alpha_us;
            across.beta_gbps = parameters.beta_gbps;
            across.inter = parameters.inter;
            across.bootstrap = parameters.bootstrap;
          } else {
            across.larger_messages.push_back(parameters);
          }
        }
        if (!fit.separable) {
          series.notes.push_back(form.name + ": these placements cannot tell intra-host from inter-host parameters apart (every step "
                                 "count moves together); add a run on one host, or one rank per host");
        }
        best_segments_note.clear();
        for (const double threshold : fit.thresholds) {
          best_segments_note += (best_segments_note.empty() ? "" : ", ") + number_text(threshold, "%.0f");
        }
        best = across;
      }
      if (best) {
        series.across = best;
        if (best->chosen_by_fit) {
          series.notes.push_back("algorithm '" + key[2].second + "' names no form: " + best->form + " fits best (rms relative error: " + tried + ")");
        }
        if (!best_segments_note.empty()) {
          series.notes.push_back("protocol breakpoints carried across world sizes: messages per step above " + best_segments_note +
                                 " bytes have their own alpha and beta");
        }
        if (!best->intra_measured) {
          series.notes.push_back(best->inter && best->alpha_us.value != best->inter->alpha_us.value
                                     ? "no step of these runs sends within a host alone: intra-host bytes are costed with the inter-host "
                                       "beta (an upper bound); the intra-host alpha is fitted"
                                     : "no report had two ranks on one host: intra-host steps are costed with the inter-host fit (an upper bound)");
        }
        if (best->inter && best->inter->beta_gbps.value > best->beta_gbps.value * 1.0001 && best->intra_measured) {
          series.notes.push_back("the link between hosts fitted faster than within a host: the model assumes the opposite (check the placements)");
        }
      }
    }
    model.series.push_back(std::move(series));
  }
  return model;
}


json model_json(const Model& model) {
  json series = json::array();
  for (const auto& one : model.series) {
    json key = json::object();
    for (const auto& [name, value] : one.key) key[name] = value;
    json worlds = json::array();
    for (const auto& world : one.per_world_size) {
      json pieces = json::array();
      for (const auto& piece : world.pieces) {
        pieces.push_back({{"from_bytes", piece.from_bytes}, {"to_bytes", piece.to_bytes}, {"alpha_us", interval_json(piece.alpha_us)},
                          {"beta_gbps", interval_json(piece.beta_gbps)}, {"points", piece.points},
                          {"rms_relative_error", piece.rms_relative_error}});
      }
      // (size, time) pairs as [bytes, time] arrays.
      worlds.push_back(
          {{"world_size", world.world_size}, {"hosts", world.hosts}, {"pieces", pieces}, {"measured", json(world.measured)}});
      if (!world.library_estimates.empty()) worlds.back()["library_estimates"] = world.library_estimates;
    }
    json entry = {{"key", key}, {"bus_factor", one.bus_factor}, {"time_aggregation", one.time_aggregation}, {"smallest_bytes", one.smallest_bytes}, {"largest_bytes", one.largest_bytes},
                  {"per_world_size", worlds}, {"notes", one.notes}};
    if (one.across) {
      const AcrossWorldSizes& fit = *one.across;
      json across = levels_json(fit.alpha_us, fit.beta_gbps, fit.inter, fit.bootstrap);
      across.update({{"form", fit.form}, {"chosen_by_fit", fit.chosen_by_fit}, {"intra_measured", fit.intra_measured},
                     {"rms_relative_error", fit.rms_relative_error}});
      json segments = json::array();
      for (const auto& segment : fit.larger_messages) {
        segments.push_back(levels_json(segment.alpha_us, segment.beta_gbps, segment.inter, segment.bootstrap));
        segments.back()["above_step_bytes"] = segment.above_step_bytes;
      }
      if (!segments.empty()) across["larger_messages"] = segments;
      entry["across_world_sizes"] = across;
    }
    series.push_back(entry);
  }
  return {{"collbench_model", kModelVersion}, {"figure", model.figure}, {"machine", model.machine}, {"sources", model.sources}, {"series", series}};
}

Model model_from_json(const json& document, const std::string& path) {
  const auto bad = [&](const std::string& why) { return InputError(path + ": not a collbench model (" + why + ")"); };
  // A byte count must be a whole number of at least 0: nlohmann's get<uint64_t> would wrap -5 into
  // 2^64 - 5 and 1.5 into 1 without a word.
  const auto bytes_at = [&](const json& value, const char* name) {
    if (!value.is_number_unsigned()) throw bad(std::string(name) + " is not a byte count");
    return value.get<std::uint64_t>();
  };
  // Version 1 files (one alpha and beta for every size) read as version 2 files without segments.
  if (!document.is_object() || !document.contains("collbench_model") || !document.at("collbench_model").is_number_integer() ||
      document.at("collbench_model").get<int>() < 1 || document.at("collbench_model").get<int>() > kModelVersion) {
    throw bad("no \"collbench_model\": 1 or " + std::to_string(kModelVersion));
  }
  Model model;
  try {
    model.figure = document.at("figure").get<std::string>();
    model.machine = document.at("machine").get<std::string>();
    for (const auto& entry : document.at("series")) {
      SeriesModel series;
      for (const char* name : {"benchmark", "backend", "algorithm", "dtype", "op", "root", "placement"}) {
        series.key.emplace_back(name, entry.at("key").at(name).get<std::string>());
      }
      const std::string& root = series.key[5].second;
      char* end = nullptr;
      const long root_rank = std::strtol(root.c_str(), &end, 10);
      if (root.empty() || *end != '\0' || root_rank < -1 || root_rank > std::numeric_limits<int>::max()) throw bad("root must be a rank or -1");
      series.bus_factor = entry.at("bus_factor").get<std::string>();
      series.time_aggregation = entry.value("time_aggregation", std::string("mean"));
      series.smallest_bytes = bytes_at(entry.at("smallest_bytes"), "smallest_bytes");
      series.largest_bytes = bytes_at(entry.at("largest_bytes"), "largest_bytes");
      for (const auto& world : entry.at("per_world_size")) {
        WorldSizeFit fit;
        fit.world_size = world.at("world_size").get<int>();
        if (fit.world_size < 1) throw bad("world_size below 1");
        fit.hosts = world.value("hosts", 1);
        if (fit.hosts < 1 || fit.hosts > fit.world_size) throw bad("hosts outside 1 to world_size");
        for (const auto& piece : world.at("pieces")) {
          HockneyPiece one;
          one.from_bytes = bytes_at(piece.at("from_bytes"), "from_bytes");
          one.to_bytes = bytes_at(piece.at("to_bytes"), "to_bytes");
          one.alpha_us = interval_from(piece.at("alpha_us"), path + ": alpha_us");
          one.beta_gbps = interval_from(piece.at("beta_gbps"), path + ": beta_gbps");
          if (!(one.beta_gbps.value > 0)) throw bad("beta_gbps must be above 0");
          fit.pieces.push_back(one);
        }
        if (fit.pieces.empty()) throw bad("a world size without pieces");
        for (const auto& point : world.value("measured", json::array())) {
          if (!point.is_array() || point.size() != 2 || !point[0].is_number_unsigned() || !point[1].is_number() ||
              !(point[1].get<double>() > 0)) {
            throw bad("a measured point is not [bytes, time above 0]");
          }
          fit.measured.emplace_back(point[0].get<std::uint64_t>(), point[1].get<double>());
        }
        for (const auto& point : world.value("library_estimates", json::array())) {
          if (!point.is_array() || point.size() != 2 || !point[0].is_number_unsigned() || !point[1].is_number() || !(point[1].get<double>() > 0)) {
            throw bad("a library estimate is not [bytes, time above 0]");
          }
          fit.library_estimates.emplace_back(point[0].get<std::uint64_t>(), point[1].get<double>());
        }
        series.per_world_size.push_back(fit);
      }
      if (entry.contains("across_world_sizes")) {
        const auto& across = entry.at("across_world_sizes");
        AcrossWorldSizes fit;
        fit.form = across.at("form").get<std::string>();
        fit.chosen_by_fit = across.at("chosen_by_fit").get<bool>();
        fit.alpha_us = interval_from(across.at("alpha_us"), path + ": alpha_us");
        fit.beta_gbps = interval_from(across.at("beta_gbps"), path + ": beta_gbps");
        if (!(fit.beta_gbps.value > 0)) throw bad("beta_gbps must be above 0");
        fit.intra_measured = across.value("intra_measured", true);
        if (across.contains("inter_alpha_us") || across.contains("inter_beta_gbps")) {
          fit.inter = LinkParameters{interval_from(across.at("inter_alpha_us"), path + ": inter_alpha_us"),
                                     interval_from(across.at("inter_beta_gbps"), path + ": inter_beta_gbps")};
          if (!(fit.inter->beta_gbps.value > 0)) throw bad("inter_beta_gbps must be above 0");
        }
        const auto draws_from = [&](const json& list, bool inter) {
          const std::size_t width = inter ? 4 : 2;
          std::vector<BootstrapDraw> out;
          for (const auto& draw : list) {
            if (!draw.is_array() || draw.size() != width) throw bad("a bootstrap draw of " + std::to_string(width) + " numbers expected");
            BootstrapDraw one{draw.at(0).get<double>(), draw.at(1).get<double>(), 0, 0};
            if (width == 4) {
              one.inter_alpha_us = draw.at(2).get<double>();
              one.inter_beta_gbps = draw.at(3).get<double>();
            }
            const auto finite = [](double value) { return std::isfinite(value); };
            if (!(one.beta_gbps > 0) || !(one.alpha_us >= 0) || !finite(one.alpha_us) || !finite(one.beta_gbps) ||
                (width == 4 && (!(one.inter_beta_gbps > 0) || !(one.inter_alpha_us >= 0) || !finite(one.inter_alpha_us) ||
                                !finite(one.inter_beta_gbps)))) {
              throw bad("a bootstrap draw out of range");
            }
            out.push_back(one);
          }
          return out;
        };
        fit.bootstrap = draws_from(across.at("bootstrap"), fit.inter.has_value());
        std::uint64_t previous_above = 0;
        for (const auto& item : across.value("larger_messages", json::array())) {
          ProtocolSegment segment;
          segment.above_step_bytes = bytes_at(item.at("above_step_bytes"), "above_step_bytes");
          if (segment.above_step_bytes <= previous_above && !fit.larger_messages.empty()) throw bad("larger_messages out of size order");
          previous_above = segment.above_step_bytes;
          segment.alpha_us = interval_from(item.at("alpha_us"), path + ": alpha_us");
          segment.beta_gbps = interval_from(item.at("beta_gbps"), path + ": beta_gbps");
          if (!(segment.beta_gbps.value > 0)) throw bad("beta_gbps must be above 0");
          // Every segment has the levels the first one has: a prediction picks any of them.
          if (item.contains("inter_alpha_us") != fit.inter.has_value()) throw bad("a segment without the first segment's levels");
          if (fit.inter) {
            segment.inter = LinkParameters{interval_from(item.at("inter_alpha_us"), path + ": inter_alpha_us"),
                                           interval_from(item.at("inter_beta_gbps"), path + ": inter_beta_gbps")};
            if (!(segment.inter->beta_gbps.value > 0)) throw bad("inter_beta_gbps must be above 0");
          }
          segment.bootstrap = draws_from(item.at("bootstrap"), fit.inter.has_value());
          fit.larger_messages.push_back(std::move(segment));
        }
        const auto forms = algorithm_forms(series.key.front().second);
        if (std::none_of(forms.begin(), forms.end(), [&](const AlgorithmForm& form) { return form.name == fit.form; })) {
          throw bad("unknown form '" + fit.form + "' for " + series.key.front().second);
        }
        series.across = fit;
      }
      model.series.push_back(std::move(series));
    }
  } catch (const json::exception& e) {
    throw bad(e.what());
  }
  if (model.series.empty()) throw bad("no series");
  return model;
}

Model read_model_file(const std::string& path) {
  // A fit of many series is tens of KB; JSON may be one line, so only the size is capped.
  const std::string text = read_input(path, {"model file", 64u << 20, 64u << 20});
  json document;
  try {
    document = json::parse(text);
  } catch (const json::exception&) {
    throw InputError(path + ": not JSON");
  }
  return model_from_json(document, path);
}

Document fit_document(const Model& model) {
  Document document;
  Table per_world;
  per_world.title = "Hockney fits per world size: t = alpha + bytes / beta (95% bootstrap intervals)";
  per_world.group_columns = {"series"};
  per_world.columns = {{"ranks"},    {"hosts"},     {"from_bytes"}, {"to_bytes"}, {"alpha_us", 3}, {"alpha_low", 3}, {"alpha_high", 3},
                       {"beta_gbps", 3}, {"beta_low", 3}, {"beta_high", 3}, {"points"}, {"rms_error_pct", 1}};
  Table across;
  across.title = "Across world sizes: t = a(p) alpha + b(p) bytes / beta, per link (intra-host, inter-host)";
  across.group_columns = {"series"};
  across.columns = {{"form"}, {"chosen_by_fit"}, {"step_bytes"}, {"link"}, {"alpha_us", 3}, {"alpha_low", 3}, {"alpha_high", 3},
                    {"beta_gbps", 3}, {"beta_low", 3}, {"beta_high", 3}, {"rms_error_pct", 1}};
  for (const auto& series : model.series) {
    Table::Group group{{describe_key(series.key)}, {}};
    for (const auto& world : series.per_world_size) {
      for (const auto& piece : world.pieces) {
        group.rows.push_back({world.world_size, world.hosts, piece.from_bytes, piece.to_bytes, piece.alpha_us.value, piece.alpha_us.low,
                              piece.alpha_us.high, piece.beta_gbps.value, piece.beta_gbps.low, piece.beta_gbps.high, piece.points,
                              100 * piece.rms_relative_error});
      }
    }
    per_world.groups.push_back(group);
    if (series.across) {
      const auto& a = *series.across;
      Table::Group levels{{describe_key(series.key)}, {}};
      // Messages per step each segment prices: "all", "<= N", "> N" or "N-M" (N exclusive).
      const auto range_of = [&](std::size_t segment) {
        const auto& larger = a.larger_messages;
        if (larger.empty()) return std::string("all");
        if (segment == 0) return "<= " + std::to_string(larger.front().above_step_bytes);
        const std::string from = std::to_string(larger[segment - 1].above_step_bytes);
        return segment == larger.size() ? "> " + from : "> " + from + ", <= " + std::to_string(larger[segment].above_step_bytes);
      };
      const auto add = [&](const std::string& range, const char* link, const ParameterInterval& alpha, const ParameterInterval& beta) {
        levels.rows.push_back({a.form, a.chosen_by_fit ? "yes" : "no", range, link, alpha.value, alpha.low, alpha.high, beta.value,
                               beta.low, beta.high, 100 * a.rms_relative_error});
      };
      // A ring's chain can measure the intra-host alpha without its beta: that row says so.
      const bool alpha_only = !a.intra_measured && a.inter && a.alpha_us.value != a.inter->alpha_us.value;
      const char* intra_link = alpha_only ? "intra-host (alpha only)" : a.inter ? "intra-host" : "one host";
      if (a.intra_measured || alpha_only) add(range_of(0), intra_link, a.alpha_us, a.beta_gbps);
      if (a.inter) add(range_of(0), "inter-host", a.inter->alpha_us, a.inter->beta_gbps);
      for (std::size_t k = 0; k < a.larger_messages.size(); ++k) {
        const auto& segment = a.larger_messages[k];
        if (a.intra_measured || alpha_only) add(range_of(k + 1), intra_link, segment.alpha_us, segment.beta_gbps);
        if (segment.inter) add(range_of(k + 1), "inter-host", segment.inter->alpha_us, segment.inter->beta_gbps);
      }
      across.groups.push_back(levels);
    }
    for (const auto& note : series.notes) document.notes.push_back(describe_key(series.key) + ": " + note);
  }
  document.tables.push_back(per_world);
  if (!across.groups.empty()) document.tables.push_back(across);
  // Measured, the library's own estimate and the fit side by side, where the rows had estimates.
  Table estimated;
  estimated.title = "Measured, the library's own estimate (NCCL: ncclGroupSimulateEnd) and the fit, per size";
  estimated.group_columns = {"series"};
  estimated.columns = {{"ranks"}, {"bytes"}, {"measured_us", 3}, {"library_us", 3}, {"fitted_us", 3}, {"library/measured", 3}, {"fit/measured", 3}};
  for (const auto& series : model.series) {
    Table::Group group{{describe_key(series.key)}, {}};
    for (const auto& world : series.per_world_size) {
      for (const auto& estimate : world.library_estimates) {
        // Named copies, not structured bindings: a lambda below captures them (C++17).
        const std::uint64_t bytes = estimate.first;
        const double library = estimate.second, fitted = fitted_time_us(world, bytes);
        const auto measured = std::find_if(world.measured.begin(), world.measured.end(), [&](const auto& point) { return point.first == bytes; });
        const bool has_measured = measured != world.measured.end();
        const auto ratio = [&](double value) { return has_measured ? nlohmann::json(value / measured->second) : nlohmann::json(nullptr); };
        group.rows.push_back({world.world_size, bytes, has_measured ? nlohmann::json(measured->second) : nlohmann::json(nullptr), library,
                              fitted, ratio(library), ratio(fitted)});
      }
    }
    if (!group.rows.empty()) estimated.groups.push_back(group);
  }
  if (!estimated.groups.empty()) {
    document.tables.push_back(estimated);
    document.notes.push_back("library_us: the library's own cost model for one call, not a measurement; NCCL's is not yet checked against a GPU run");
  }
  document.notes.push_back("figure per row: the " + model.figure + " time; machine: " + model.machine);
  return document;
}

void check_predict_options(const PredictOptions& options) {
  if (options.world_size < 1) throw InputError("model: --np must be at least 1");
  if (options.ranks_per_host < 0 || options.ranks_per_host > options.world_size) {
    throw InputError("model: --ranks-per-host must lie between 1 and --np");
  }
  const bool spans_hosts = options.ranks_per_host > 0 && options.ranks_per_host < options.world_size;
  if (spans_hosts && options.world_size % options.ranks_per_host != 0) {
    throw InputError("model: --np " + std::to_string(options.world_size) + " is not a multiple of --ranks-per-host " +
                     std::to_string(options.ranks_per_host) + " (every host holds as many ranks)");
  }
  if ((options.inter_latency_us || options.inter_bandwidth_gbps) && !spans_hosts) {
    throw InputError("model: --inter-latency and --inter-bandwidth need ranks on several hosts (--ranks-per-host below --np)");
  }
}

SeriesPredictor::SeriesPredictor(const SeriesModel& series, const PredictOptions& options) : series_(series), options_(options) {
  check_predict_options(options);
  const int p = options.world_size;
  spans_hosts_ = options.ranks_per_host > 0 && options.ranks_per_host < p;
  const int hosts = spans_hosts_ ? p / options.ranks_per_host : 1;
  for (const auto& world : series.per_world_size) {
    fitted_largest_world_ = std::max(fitted_largest_world_, world.world_size);
    if (world.world_size == p && world.hosts == hosts) same_world_ = &world;
  }
  if (options.inter_latency_us || options.inter_bandwidth_gbps) same_world_ = nullptr;
  if (!series.across && !same_world_) {
    throw InputError("model: " + describe_key(series.key) + " was fitted at world size " + std::to_string(fitted_largest_world_) +
                     " only: no world sizes to extrapolate from (fit reports of two world sizes or more)");
  }
  if (series.across) {
    forms_ = algorithm_forms(series.key.front().second);
    for (std::size_t i = 0; i < forms_.size(); ++i) {
      if (forms_[i].name == series.across->form) form_index_ = static_cast<int>(i);
    }
    element_bytes_ = element_bytes_of(series.key[3].second);
    if (form_index_ >= 0) coefficients_ = coefficients_at(forms_[static_cast<std::size_t>(form_index_)]);
  }
}

StepCoefficients SeriesPredictor::coefficients_at(const AlgorithmForm& form) const {
  const int p = options_.world_size;
  return step_coefficients(form, block_placement(p, spans_hosts_ ? options_.ranks_per_host : 0), std::stoi(series_.key[5].second),
                           series_.time_aggregation == "mean");
}

Prediction SeriesPredictor::at(std::uint64_t bytes) const {
  const double m = static_cast<double>(bytes);
  Prediction out;
  if (same_world_) {
    // Measured at this world size and placement: the piece holding this size (the nearest at the ends).
    const HockneyPiece* piece = &piece_for(*same_world_, bytes);
    const auto hockney = [m](double alpha_us, double beta_gbps) { return alpha_us + m / (beta_gbps * 1e3); };
    out.from_world_size_fit = true;
    out.latency_us = piece->alpha_us.value;
    out.bandwidth_us = m / (piece->beta_gbps.value * 1e3);
    out.time_us = out.latency_us + out.bandwidth_us;
    const double a = hockney(piece->alpha_us.low, piece->beta_gbps.high), b = hockney(piece->alpha_us.high, piece->beta_gbps.low);
    out.low_us = std::min(a, b);
    out.high_us = std::max(a, b);
  } else if (form_index_ >= 0) {
    const AcrossWorldSizes& across = *series_.across;
    const int p = options_.world_size;
    const AlgorithmForm& form = forms_[static_cast<std::size_t>(form_index_)];
    // What Open MPI runs at this count, and the protocol segment its message per step falls in.
    const AlgorithmForm& run = form_run_at(form, forms_, series_.key[2].second, p, element_bytes_ > 0 ? m / element_bytes_ : 0);
    const StepCoefficients coefficients = run.name == form.name ? coefficients_ : coefficients_at(run);
    const double step_bytes = step_message_share(run, p) * m;
    std::size_t segment = 0;
    while (segment < across.larger_messages.size() && step_bytes > static_cast<double>(across.larger_messages[segment].above_step_bytes)) {
      ++segment;
    }
    // The link between hosts: the fitted one, else the one within a host (not measured), and the
    // options replace either parameter. --inter-latency replaces the first segment's alpha; the
    // others keep their ratio to it (a rendezvous step's alpha is a number of crossings of the
    // same link, so it scales with its delay).
    const auto cost = [&](const BootstrapDraw& first, const BootstrapDraw& here) {
      double inter_alpha = here.inter_alpha_us, inter_beta = here.inter_beta_gbps;
      double first_inter_alpha = first.inter_alpha_us;
      if (!across.inter) {
        inter_alpha = here.alpha_us;
        inter_beta = here.beta_gbps;
        first_inter_alpha = first.alpha_us;
      }
      if (options_.inter_latency_us) {
        inter_alpha = first_inter_alpha > 0 ? inter_alpha * *options_.inter_latency_us / first_inter_alpha : *options_.inter_latency_us;
      }
      if (options_.inter_bandwidth_gbps) inter_beta = *options_.inter_bandwidth_gbps;
      return cost_of(coefficients, m, here.alpha_us, here.beta_gbps, inter_alpha, inter_beta);
    };
    const auto central_of = [&](const ParameterInterval& alpha, const ParameterInterval& beta, const std::optional<LinkParameters>& inter) {
      return BootstrapDraw{alpha.value, beta.value, inter ? inter->alpha_us.value : 0, inter ? inter->beta_gbps.value : 0};
    };
    const BootstrapDraw first = central_of(across.alpha_us, across.beta_gbps, across.inter);
    const ProtocolSegment* larger = segment == 0 ? nullptr : &across.larger_messages[segment - 1];
    const BootstrapDraw here = larger ? central_of(larger->alpha_us, larger->beta_gbps, larger->inter) : first;
    const LinkCost central = cost(first, here);
    out.time_us = central.time_us;
    out.latency_us = central.latency_us;
    out.bandwidth_us = central.bandwidth_us;
    std::vector<double> draws;
    const std::size_t count = larger ? std::min(across.bootstrap.size(), larger->bootstrap.size()) : across.bootstrap.size();
    for (std::size_t d = 0; d < count; ++d) draws.push_back(cost(across.bootstrap[d], larger ? larger->bootstrap[d] : across.bootstrap[d]).time_us);
    out.low_us = draws.empty() ? out.time_us : percentile(draws, 0.025);
    out.high_us = draws.empty() ? out.time_us : percentile(draws, 0.975);
  }
  std::vector<std::string> labels;
  if (options_.world_size > 2 * fitted_largest_world_) labels.push_back("ranks");
  if (bytes < series_.smallest_bytes || bytes > series_.largest_bytes) labels.push_back("size");
  if (options_.inter_latency_us || options_.inter_bandwidth_gbps) labels.push_back("link");
  if (spans_hosts_ && !same_world_ && series_.across && !series_.across->inter &&
      !(options_.inter_latency_us && options_.inter_bandwidth_gbps)) {
    labels.push_back("hosts");
  }
  for (const auto& label : labels) out.extrapolated += (out.extrapolated.empty() ? "" : "+") + label;
  return out;
}

std::vector<std::string> SeriesPredictor::notes() const {
  const std::string name = describe_key(series_.key);
  std::vector<std::string> notes;
  if (same_world_) {
    notes.push_back(name + ": measured at " + std::to_string(options_.world_size) + " ranks on " + std::to_string(same_world_->hosts) +
                    " host(s): its own Hockney fit");
    return notes;
  }
  const AcrossWorldSizes& across = *series_.across;
  notes.push_back(name + ": " + across.form + " cost form" + (across.chosen_by_fit ? " (chosen by fit)" : "") +
                  ", fitted from world sizes up to " + std::to_string(fitted_largest_world_));
  for (const auto& segment : across.larger_messages) {
    notes.push_back(name + ": messages per step above " + std::to_string(segment.above_step_bytes) +
                    " bytes are priced with the alpha and beta fitted above that protocol breakpoint");
  }
  if (across.form == "ring" && (series_.key[2].second.rfind("ompi-tuned-4", 0) == 0 || series_.key[2].second.rfind("ompi-tuned-5", 0) == 0)) {
    notes.push_back(name + ": below one element per rank Open MPI's ring runs recursive doubling, and so does the model");
  }
  if (options_.world_size > 2 * fitted_largest_world_) {
    notes.push_back(name + ": " + std::to_string(options_.world_size) + " ranks is far outside the fitted world sizes (up to " +
                    std::to_string(fitted_largest_world_) + "): the interval covers the fit's noise, not the model's form");
  }
  if (!spans_hosts_) return notes;
  const auto link = [](double alpha_us, double beta_gbps) {
    return "alpha " + number_text(alpha_us) + " us, beta " + number_text(beta_gbps) + " GB/s";
  };
  std::string inter = across.inter ? "fitted " + link(across.inter->alpha_us.value, across.inter->beta_gbps.value)
                                   : "not measured (no report spanned hosts): the intra-host fit stands in";
  if (options_.inter_latency_us) inter += "; alpha replaced by --inter-latency " + number_text(*options_.inter_latency_us, "%.6g") + " us";
  if (options_.inter_bandwidth_gbps) {
    inter += "; beta replaced by --inter-bandwidth " + number_text(*options_.inter_bandwidth_gbps, "%.6g") + " GB/s";
  }
  notes.push_back(name + ": between hosts " + inter + "; within a host " +
                  (across.intra_measured ? "fitted " + link(across.alpha_us.value, across.beta_gbps.value)
                                         : std::string("not measured: the inter-host fit stands in")));
  notes.push_back(name + ": " + std::to_string(options_.ranks_per_host) + " consecutive ranks per host; " +
                  number_text(coefficients_.intra_steps, "%.0f") + " intra-host and " + number_text(coefficients_.inter_steps, "%.0f") +
                  " inter-host steps; ranks of one host that send across at once share its link");
  return notes;
}

namespace {

// The sizes to predict: the options', else the fitted range in powers of two.
std::vector<std::uint64_t> prediction_sizes(const SeriesModel& series, const PredictOptions& options) {
  std::vector<std::uint64_t> sizes = options.sizes;
  if (sizes.empty()) {
    for (std::uint64_t bytes = series.smallest_bytes; bytes && bytes <= series.largest_bytes; bytes *= 2) sizes.push_back(bytes);
  }
  return sizes;
}

std::string world_words(const WorldSizeFit& world) {
  return std::to_string(world.world_size) + " ranks, " + std::to_string(world.hosts) + (world.hosts == 1 ? " host" : " hosts");
}

}  // namespace

std::vector<ModelPlot> model_plots(const Model& model, const PredictOptions& options) {
  check_predict_options(options);
  const bool spans_hosts = options.ranks_per_host > 0 && options.ranks_per_host < options.world_size;
  std::vector<ModelPlot> plots;
  for (const auto& series : model.series) {
    const SeriesPredictor predictor(series, options);
    ModelPlot plot;
    plot.title = describe_key(series.key);
    plot.predicted.title = "predicted " + std::to_string(options.world_size) + " ranks" +
                           (spans_hosts ? ", " + std::to_string(options.ranks_per_host) + " per host" : "");
    for (const std::uint64_t bytes : prediction_sizes(series, options)) {
      const Prediction prediction = predictor.at(bytes);
      plot.predicted.sizes.push_back(bytes);
      plot.predicted.time_us.push_back(prediction.time_us);
      plot.predicted.low_us.push_back(prediction.low_us);
      plot.predicted.high_us.push_back(prediction.high_us);
    }
    for (const auto& world : series.per_world_size) {
      plot.measured.push_back({"measured " + world_words(world), world.measured});
      // The fit drawn over its own sizes (the measured ones, or its pieces' ends in older files).
      PlotSeries fitted{"fit " + world_words(world), {}};
      std::vector<std::uint64_t> sizes;
      for (const auto& point : world.measured) sizes.push_back(point.first);
      if (sizes.empty()) {
        for (const auto& piece : world.pieces) {
          sizes.push_back(piece.from_bytes);
          sizes.push_back(piece.to_bytes);
        }
      }
      for (const std::uint64_t bytes : sizes) fitted.points.emplace_back(bytes, fitted_time_us(world, bytes));
      plot.fitted.push_back(fitted);
    }
    plots.push_back(std::move(plot));
  }
  return plots;
}

Document predict_document(const Model& model, const PredictOptions& options) {
  check_predict_options(options);
  const bool spans_hosts = options.ranks_per_host > 0 && options.ranks_per_host < options.world_size;
  Document document;
  Table table;
  table.title = "Predicted at " + std::to_string(options.world_size) + " ranks" +
                (spans_hosts ? ", " + std::to_string(options.ranks_per_host) + " per host" : "");
  table.group_columns = {"series"};
  table.columns = {{"bytes"}, {"time_us", 2}, {"low_us", 2}, {"high_us", 2}, {"busbw_gbps", 3}, {"dominant"}, {"extrapolated"}};
  for (const auto& series : model.series) {
    const SeriesPredictor predictor(series, options);
    const int p = options.world_size;
    const std::vector<std::uint64_t> sizes = prediction_sizes(series, options);
    Table::Group group{{describe_key(series.key)}, {}};
    for (std::uint64_t bytes : sizes) {
      const Prediction prediction = predictor.at(bytes);
      const double algbw_gbps = static_cast<double>(bytes) / prediction.time_us / 1e3;
      group.rows.push_back({bytes, prediction.time_us, prediction.low_us, prediction.high_us,
                            p > 1 ? json(algbw_gbps * bus_factor_at(series.bus_factor, p)) : json(nullptr),
                            prediction.latency_us >= prediction.bandwidth_us ? "latency" : "bandwidth",
                            prediction.extrapolated.empty() ? "no" : prediction.extrapolated});
    }
    table.groups.push_back(group);
    for (const auto& note : predictor.notes()) document.notes.push_back(note);
  }
  document.tables.push_back(table);
  return document;
}

}  // namespace collbench::summarize
