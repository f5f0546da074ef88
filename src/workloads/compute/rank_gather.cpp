#include "workloads/compute/rank_gather.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "report/report_json.h"

namespace collbench::compute {
namespace {

// Slots per rank in the summed vector: 8 statistics, rate, percent (NaN = none), error, wrong.
constexpr std::size_t kSlots = 12;

double or_nan(const std::optional<double>& value) { return value ? *value : std::nan(""); }

}  // namespace

std::vector<report::ThroughputRank> gather_rank_figures(World& world, const report::ThroughputRank& mine) {
  const auto ranks = static_cast<std::size_t>(world.size());
  std::vector<double> everyone(ranks * kSlots, 0.0);
  double* slot = &everyone[static_cast<std::size_t>(world.rank()) * kSlots];
  const TimeStats& t = mine.time_us;
  const double values[kSlots] = {t.min, t.p10, t.p50, t.mean, t.p95, t.p99, t.max, t.stdev, mine.rate,
                                 or_nan(mine.percent_of_peak), or_nan(mine.relative_error),
                                 mine.wrong ? static_cast<double>(*mine.wrong) : std::nan("")};
  for (std::size_t i = 0; i < kSlots; ++i) slot[i] = values[i];
  // Summing zeros with one rank's values moves each rank's figures intact (NaN and inf included).
  world.combine(everyone, Combine::kSum);
  std::vector<report::ThroughputRank> out;
  for (std::size_t rank = 0; rank < ranks; ++rank) {
    const double* v = &everyone[rank * kSlots];
    report::ThroughputRank figures;
    figures.rank = static_cast<int>(rank);
    figures.time_us = {v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]};
    figures.rate = v[8];
    if (!std::isnan(v[9])) figures.percent_of_peak = v[9];
    if (!std::isnan(v[10])) figures.relative_error = v[10];
    if (!std::isnan(v[11])) figures.wrong = static_cast<std::int64_t>(v[11]);
    out.push_back(figures);
  }
  return out;
}

Spread spread_of(const std::vector<double>& rates) {
  if (rates.empty()) throw std::invalid_argument("spread_of needs at least one rate");
  Spread spread;
  for (std::size_t rank = 0; rank < rates.size(); ++rank) {
    if (rates[rank] > rates[static_cast<std::size_t>(spread.fastest_rank)]) spread.fastest_rank = static_cast<int>(rank);
    if (rates[rank] < rates[static_cast<std::size_t>(spread.slowest_rank)]) spread.slowest_rank = static_cast<int>(rank);
  }
  spread.fastest = rates[static_cast<std::size_t>(spread.fastest_rank)];
  spread.slowest = rates[static_cast<std::size_t>(spread.slowest_rank)];
  spread.ratio = spread.slowest > 0 ? spread.fastest / spread.slowest : std::numeric_limits<double>::infinity();
  return spread;
}

Spread spread_of_ranks(const std::vector<report::ThroughputRank>& ranks) {
  std::vector<double> rates;
  for (const auto& rank : ranks) rates.push_back(rank.rate);
  return spread_of(rates);
}

nlohmann::json rank_figures_json(const std::vector<report::ThroughputRank>& ranks, const std::string& unit) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& rank : ranks) {
    nlohmann::json entry = {{"rank", rank.rank},
                            {"time_us", report::stats_to_json(rank.time_us)},
                            {unit, rank.rate},
                            {"percent_of_peak", report::json_or_null(rank.percent_of_peak)},
                            {"wrong", report::json_or_null(rank.wrong)}};
    if (rank.relative_error) entry["relative_error"] = report::finite_or_null(*rank.relative_error);
    out.push_back(entry);
  }
  return out;
}

std::vector<report::RankPlatform> gather_platforms(World& world, const report::RankPlatform& mine) {
  std::vector<report::RankPlatform> out;
  for (const auto& entry : world.gather_strings(nlohmann::json(mine).dump())) {
    out.push_back(nlohmann::json::parse(entry).get<report::RankPlatform>());
    out.back().rank = static_cast<int>(out.size()) - 1;
  }
  return out;
}

}  // namespace collbench::compute
