// collbench model fit: Hockney pieces per world size, then the cost forms across world sizes and
// hosts (model.h says how), with bootstrap intervals, and the fit as a document.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <set>

#include "core/dtype.h"
#include "core/printable.h"
#include "core/stats.h"
#include "summarize/common/figure.h"
#include "summarize/verdicts/fingerprint.h"
#include "summarize/common/input_error.h"
#include "summarize/models/model_internal.h"
#include "workloads/collectives/report/collective_rows.h"

namespace collbench::summarize {
namespace model_detail {

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
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return quantile_of_sorted(values, q);
}

double element_bytes_of(const std::string& dtype) {
  const auto parsed = parse_dtype(dtype);
  return parsed ? static_cast<double>(dtype_info(*parsed).size_bytes) : 0;
}

}  // namespace model_detail

namespace {

using model_detail::element_bytes_of;
using model_detail::percentile;

constexpr int kBootstrapDraws = 200;
// The smallest inverse bandwidth a fit may return (us per byte): 1e6 GB/s, "no bandwidth term".
constexpr double kSmallestGamma = 1e-9;

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

std::string machine_of(const std::vector<LoadedReport>& reports) {
  std::set<std::string> devices;
  std::size_t hosts = 0;
  for (const auto& loaded : reports) {
    for (const auto& rank : loaded.report.context.ranks) devices.insert(rank.device);
    hosts = std::max(hosts, loaded.report.context.hosts.size());
  }
  return joined(devices, ", ") + " on " + (hosts > 1 ? "up to " : "") + std::to_string(hosts) + " host(s)";
}

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

// fit_model's phases. The rows of every report, grouped for the fits: series key -> (world size,
// hosts) -> size -> times, and where those ranks ran.
using GroupKey = std::pair<int, int>;
struct GroupedRows {
  std::map<SeriesKey, std::map<GroupKey, std::map<std::uint64_t, std::vector<double>>>> times, estimates;
  std::map<GroupKey, std::pair<Placement, std::string>> placements;  // and the report that placed them so first
  std::map<SeriesKey, std::vector<const BusFactor*>> families;  // the bus factors the rows' factors match
  std::map<SeriesKey, std::pair<std::string, std::string>> aggregations;  // the rows' -a, and a report that has it
};

// Only collective reports of one machine: reports of different machines would fit one line
// through two machines.
void check_fittable(const std::vector<LoadedReport>& reports) {
  if (reports.empty()) throw InputError("model fit: no report given");
  const Fingerprint first = fingerprint_of({reports.front()}, {});
  for (const auto& loaded : reports) {
    if (loaded.report.kind != report::kCollectiveRows) {
      throw InputError(loaded.path + ": model fits collective reports only (this one holds " + report::row_kind_spec(loaded.report.kind).name +
                       " rows)");
    }
    if (const auto difference = fingerprint_difference(first, fingerprint_of({loaded}, {}))) {
      throw InputError("model fit: the reports come from different machines (" + *difference + "); fit each machine on its own");
    }
  }
}

void add_row(GroupedRows& grouped, const LoadedReport& loaded, const GroupKey& group, const report::Row& row) {
  // Each row's robust figure (summarize/figure.h): its p10 iteration time, or its minimum
  // when it has too few iterations for the quantile (reports before p10 have only the minimum).
  const auto& times = row.time_statistics;
  const bool quantile = static_cast<int>(*row.iterations) >= static_cast<int>(values_needed(RunFigure::kP10)) && times.count("p10");
  const double time = quantile ? times.at("p10") : times.at("min");
  if (!(time > 0) || row.size == 0) return;
  const auto text = [&row](const char* field) { return row.fields.at(field).get<std::string>(); };
  const SeriesKey key{{"benchmark", loaded.report.benchmark}, {"backend", text("backend")}, {"algorithm", text("algorithm")},
                      {"dtype", text("dtype")}, {"op", text("op")}, {"root", std::to_string(row.fields.at("root").get<int>())},
                      {"placement", text("placement")}};
  grouped.times[key][group][row.size].push_back(time);
  if (row.library_estimate_us && *row.library_estimate_us > 0) grouped.estimates[key][group][row.size].push_back(*row.library_estimate_us);
  // A row that does not say is read as the slowest rank's, as read_measurement reads it.
  const std::string written = row.fields.value("time_aggregation", "max");
  const std::string aggregation = written.empty() ? "mean" : written;
  const auto [seen, first_seen] = grouped.aggregations.emplace(key, std::pair{aggregation, loaded.path});
  if (!first_seen && seen->second.first != aggregation) {
    // A tree's mean over ranks and its slowest rank are two costs: one fit cannot hold both.
    throw InputError("model fit: " + seen->second.second + " and " + loaded.path + " combine the ranks' times differently (-a " +
                     seen->second.first + " and " + aggregation + "); fit one at a time");
  }
  auto matching = model_detail::bus_factors_matching(loaded.report.context.world_size, row.fields.value("bus_bandwidth_factor", 0.0));
  if (!matching.empty() && grouped.families[key].size() != 1) grouped.families[key] = std::move(matching);
}

GroupedRows group_rows(const std::vector<LoadedReport>& reports) {
  GroupedRows grouped;
  for (const auto& loaded : reports) {
    const Placement placement = placement_of(loaded);
    const GroupKey group{loaded.report.context.world_size, placement.hosts};
    const auto [known, added] = grouped.placements.emplace(group, std::pair{placement, loaded.path});
    if (!added && known->second.first.host_of_rank != placement.host_of_rank) {
      throw InputError("model fit: " + known->second.second + " and " + loaded.path + " place " + std::to_string(group.first) +
                       " ranks on " + std::to_string(group.second) + " hosts differently; fit one placement at a time");
    }
    for (const auto& row : loaded.report.rows) add_row(grouped, loaded, group, row);
  }
  if (grouped.times.empty()) throw InputError("model fit: no timed row with a size above 0 bytes in the reports");
  return grouped;
}

// Hockney pieces per world size (series.per_world_size), and each world size's placement and
// median times for the fit across world sizes.
std::vector<Group> fit_per_world_size(SeriesModel& series, const GroupedRows& grouped, std::mt19937& random) {
  const SeriesKey& key = series.key;
  std::vector<Group> groups;
  series.smallest_bytes = UINT64_MAX;
  const auto estimates = grouped.estimates.find(key);
  for (const auto& [group_key, by_size] : grouped.times.at(key)) {
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
    if (estimates != grouped.estimates.end()) {
      if (const auto found = estimates->second.find(group_key); found != estimates->second.end()) {
        for (const auto& [bytes, values] : found->second) world_fit.library_estimates.emplace_back(bytes, median(values));
      }
    }
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
    groups.push_back({grouped.placements.at(group_key).first, times});
  }
  return groups;
}

// Every world size's points priced by one cost form: t = intra alpha, intra bytes, inter alpha,
// inter bytes coefficients (one host only: the intra-host columns alone), with the per-world
// breakpoints as messages per step [low, high).
struct PricedPoints {
  FormPoints points;
  std::vector<std::pair<double, double>> breaks;
};

PricedPoints price_points(const SeriesModel& series, const std::vector<Group>& groups, const AlgorithmForm& form,
                          const std::vector<AlgorithmForm>& forms) {
  const SeriesKey& key = series.key;
  const int root = std::stoi(key[5].second);
  const double element = element_bytes_of(key[3].second);
  const bool mean_over_ranks = series.time_aggregation == "mean";
  PricedPoints priced;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const auto& group = groups[g];
    const int p = group.placement.world_size();
    for (const auto& [bytes, time] : group.times) {
      const double m = static_cast<double>(bytes);
      const AlgorithmForm& run = form_run_at(form, forms, key[2].second, p, element > 0 ? m / element : 0);
      const StepCoefficients c = step_coefficients(run, group.placement, root, mean_over_ranks);
      const LevelPoint point{{c.intra_steps, c.intra_bytes * m, c.inter_steps, c.inter_bytes * m}, time};
      priced.points.points.push_back(point);
      priced.points.step_bytes.push_back(step_message_share(run, p) * m);
      for (std::size_t j = 0; j < 4; ++j) priced.points.used[j] = priced.points.used[j] || point.coefficient[j] > 0;
    }
    const auto& pieces = series.per_world_size[g].pieces;
    const double share = step_message_share(form, p);
    for (std::size_t i = 0; i + 1 < pieces.size(); ++i) {
      priced.breaks.emplace_back(share * static_cast<double>(pieces[i].to_bytes), share * static_cast<double>(pieces[i + 1].from_bytes));
    }
  }
  return priced;
}

// One form's fit across world sizes, its segments' parameters drawn from `seed`.
AcrossWorldSizes across_of(const AlgorithmForm& form, bool chosen_by_fit, double rms, const FormPoints& points, const SegmentedFit& fit,
                           unsigned seed) {
  std::mt19937 draws(seed);
  AcrossWorldSizes across;
  across.form = form.name;
  across.chosen_by_fit = chosen_by_fit;
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
  return across;
}

// What the series' notes say of the best form's fit.
void note_best_fit(SeriesModel& series, const AcrossWorldSizes& best, const std::string& tried, const std::string& segments_note) {
  const std::string& algorithm = series.key[2].second;
  if (best.chosen_by_fit) {
    series.notes.push_back("algorithm '" + algorithm + "' names no form: " + best.form + " fits best (rms relative error: " + tried + ")");
  }
  if (!segments_note.empty()) {
    series.notes.push_back("protocol breakpoints carried across world sizes: messages per step above " + segments_note +
                           " bytes have their own alpha and beta");
  }
  if (!best.intra_measured) {
    series.notes.push_back(best.inter && best.alpha_us.value != best.inter->alpha_us.value
                               ? "no step of these runs sends within a host alone: intra-host bytes are costed with the inter-host "
                                 "beta (an upper bound); the intra-host alpha is fitted"
                               : "no report had two ranks on one host: intra-host steps are costed with the inter-host fit (an upper bound)");
  }
  if (best.inter && best.inter->beta_gbps.value > best.beta_gbps.value * 1.0001 && best.intra_measured) {
    series.notes.push_back("the link between hosts fitted faster than within a host: the model assumes the opposite (check the placements)");
  }
}

// The cost forms across world sizes and hosts (series.across): the form the algorithm names, or
// the one that fits best.
void fit_across_world_sizes(SeriesModel& series, const std::vector<Group>& groups, unsigned seed) {
  const std::string& benchmark = series.key.front().second;
  const auto forms = algorithm_forms(benchmark);
  if (forms.empty()) {
    series.notes.push_back("no cost form for " + benchmark + ": fitted per world size only");
    return;
  }
  if (groups.size() < 2) {
    series.notes.push_back("one world size: nothing to extrapolate across world sizes from (measure two or more)");
    return;
  }
  const std::string named = model_detail::form_named_by(benchmark, series.key[2].second);
  std::optional<AcrossWorldSizes> best;
  std::string best_segments_note;
  std::string tried;
  for (const auto& form : forms) {
    if (!named.empty() && form.name != named) continue;
    const PricedPoints priced = price_points(series, groups, form, forms);
    const SegmentedFit fit = fit_segmented(priced.points, priced.breaks);
    const double rms = std::sqrt(fit.sse / static_cast<double>(priced.points.points.size()));
    tried += (tried.empty() ? "" : ", ") + form.name + " " + formatted("%.1f", 100 * rms) + "%";
    if (best && rms >= best->rms_relative_error) continue;
    const AcrossWorldSizes across = across_of(form, named.empty(), rms, priced.points, fit, seed);
    if (!fit.separable) {
      series.notes.push_back(form.name + ": these placements cannot tell intra-host from inter-host parameters apart (every step "
                             "count moves together); add a run on one host, or one rank per host");
    }
    best_segments_note.clear();
    for (const double threshold : fit.thresholds) {
      best_segments_note += (best_segments_note.empty() ? "" : ", ") + formatted("%.0f", threshold);
    }
    best = across;
  }
  if (!best) return;
  series.across = best;
  note_best_fit(series, *best, tried, best_segments_note);
}

}  // namespace

Model fit_model(const std::vector<LoadedReport>& reports, unsigned seed) {
  check_fittable(reports);
  Model model;
  for (const auto& loaded : reports) model.sources.push_back(loaded.path);
  model.machine = machine_of(reports);
  const GroupedRows grouped = group_rows(reports);
  std::mt19937 random(seed);
  for (const auto& [key, by_group] : grouped.times) {
    SeriesModel series;
    series.key = key;
    const auto found = grouped.families.find(key);
    const std::vector<const BusFactor*> matching = found == grouped.families.end() ? std::vector<const BusFactor*>{} : found->second;
    series.bus_factor = matching.empty() ? "" : matching.size() == 1 ? matching.front()->formula : model_detail::bus_factor_of(key.front().second, matching);
    series.time_aggregation = grouped.aggregations.at(key).first;
    const std::vector<Group> groups = fit_per_world_size(series, grouped, random);
    fit_across_world_sizes(series, groups, seed);
    model.series.push_back(std::move(series));
  }
  return model;
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
        const double library = estimate.second, fitted = model_detail::fitted_time_us(world, bytes);
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

}  // namespace collbench::summarize
