// collbench model's cost forms: each collective's algorithms as steps between ranks, what they
// cost at a placement of ranks on hosts, and the table of the collectives the model knows.
#include <algorithm>
#include <cmath>
#include <tuple>

#include "summarize/models/model_internal.h"

namespace collbench::summarize {
namespace {

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

// What the model knows of each collective it costs, by the name its rows carry (the report's
// benchmark): its cost forms; the algorithm labels that name one of them (an Open MPI tuned label
// by its first word, "ompi-tuned-4"; "*": whatever the label); and its bus factor, the one its
// descriptor names (workloads/collectives/<name>.cpp: tests/summarize/test_model.cpp holds them equal).
struct CollectiveCosts {
  std::string_view collective;
  const BusFactor* bus_factor;
  std::vector<AlgorithmForm> forms;
  std::vector<std::pair<std::string_view, std::string_view>> labels;  // algorithm label -> form
};

const std::vector<CollectiveCosts>& collective_costs() {
  const AlgorithmForm ring{"ring", all_but_one, all_but_one_share, ring_steps_of};
  const AlgorithmForm doubling_gather{"recursive_doubling", log2_steps, all_but_one_share, doubling_gather_steps_of};
  static const std::vector<CollectiveCosts> table = {
      {"all_reduce",
       &kBusFactorTwiceAllButOneShare,
       {{"ring", ring_all_reduce_steps, ring_all_reduce_share, ring_all_reduce_steps_of},
        {"recursive_doubling", log2_steps, log2_steps, exchange_steps_of},
        {"halving_doubling", twice_log2_steps, ring_all_reduce_share, halving_doubling_steps_of}},
       {{"ring", "ring"}, {"ring_chunked", "ring"}, {"ompi-tuned-4", "ring"}, {"ompi-tuned-5", "ring"},
        {"ompi-tuned-3", "recursive_doubling"}, {"halving_doubling", "halving_doubling"}, {"ompi-tuned-6", "halving_doubling"}}},
      {"broadcast",
       &kBusFactorOne,
       {{"binomial_tree", log2_steps, log2_steps, tree_down_steps_of},
        {"ompi_binomial", log2_steps, log2_steps, tree_down_steps_of, ompi_binomial_broadcast},
        {"linear", all_but_one, all_but_one, linear_broadcast_steps_of},
        {"scatter_allgather", scatter_allgather_steps, ring_all_reduce_share, scatter_allgather_steps_of}},
       {{"ompi-tuned-6", "ompi_binomial"}, {"ompi-tuned-1", "linear"}, {"ompi-tuned-8", "scatter_allgather"},
        {"ompi-tuned-9", "scatter_allgather"}}},
      {"reduce",
       &kBusFactorOne,
       {{"binomial_tree", log2_steps, log2_steps, tree_up_steps_of}, {"linear", all_but_one, all_but_one, linear_reduce_steps_of}},
       {}},
      {"all_gather", &kBusFactorAllButOneShare, {ring, doubling_gather}, {}},
      {"reduce_scatter", &kBusFactorAllButOneShare, {ring, doubling_gather}, {}},
      {"alltoall",
       &kBusFactorAllButOneShare,
       {{"pairwise", all_but_one, all_but_one_share, pairwise_steps_of}, {"bruck", log2_steps, half_log2_steps, bruck_steps_of}},
       {{"ompi-tuned-1", "pairwise"}, {"ompi-tuned-2", "pairwise"}, {"ompi-tuned-4", "pairwise"}, {"ompi-tuned-3", "bruck"}}},
      {"gather",
       &kBusFactorAllButOneShare,
       {{"linear", all_but_one, all_but_one_share, linear_gather_steps_of},
        {"binomial_tree", log2_steps, all_but_one_share, tree_gather_steps_of}},
       {}},
      {"scatter",
       &kBusFactorAllButOneShare,
       {{"linear", all_but_one, all_but_one_share, linear_scatter_steps_of},
        {"binomial_tree", log2_steps, all_but_one_share, tree_scatter_steps_of}},
       {}},
      {"sendrecv", &kBusFactorOne, {{"direct", one, one, direct_steps_of}}, {{"*", "direct"}}},
  };
  return table;
}

const CollectiveCosts* costs_of(const std::string& benchmark) {
  for (const auto& costs : collective_costs()) {
    if (costs.collective == benchmark) return &costs;
  }
  return nullptr;
}

}  // namespace

namespace model_detail {

std::string form_named_by(const std::string& benchmark, const std::string& algorithm) {
  const CollectiveCosts* costs = costs_of(benchmark);
  if (!costs) return "";
  const std::string label = algorithm.rfind("ompi-tuned-", 0) == 0 ? algorithm.substr(0, algorithm.find(' ')) : algorithm;
  for (const auto& [named, form] : costs->labels) {
    if (named == "*" || named == label) return std::string(form);
  }
  return "";
}

bool runs_ompi_ring(const std::string& algorithm) {
  return algorithm.rfind("ompi-tuned-4", 0) == 0 || algorithm.rfind("ompi-tuned-5", 0) == 0;
}

std::vector<const BusFactor*> bus_factors_matching(int ranks, double factor) {
  std::vector<const BusFactor*> matching;
  if (ranks <= 1 || factor <= 0) return matching;
  for (const BusFactor* candidate : kBusFactors) {
    if (std::abs(factor - candidate->at(ranks)) < 1e-9) matching.push_back(candidate);
  }
  return matching;
}

std::string_view bus_factor_of(const std::string& benchmark, const std::vector<const BusFactor*>& matching) {
  const CollectiveCosts* costs = costs_of(benchmark);
  const bool own = costs && std::find(matching.begin(), matching.end(), costs->bus_factor) != matching.end();
  return own ? costs->bus_factor->formula : kBusFactorOne.formula;
}

double bus_factor_at(const std::string& formula, int ranks) {
  if (ranks <= 1) return 0;
  for (const BusFactor* factor : kBusFactors) {
    if (factor->formula == formula) return factor->at(ranks);
  }
  return 1;
}

}  // namespace model_detail

std::vector<AlgorithmForm> algorithm_forms(const std::string& benchmark) {
  const CollectiveCosts* costs = costs_of(benchmark);
  return costs ? costs->forms : std::vector<AlgorithmForm>{};
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
  if (form.name != "ring" || !model_detail::runs_ompi_ring(algorithm) || !(elements > 0) || elements >= ranks) return form;
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

}  // namespace collbench::summarize
