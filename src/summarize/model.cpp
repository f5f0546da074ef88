#include "summarize/model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <random>
#include <set>

#include "summarize/figure.h"
#include "summarize/fingerprint.h"
#include "summarize/input_error.h"

namespace collbench::summarize {
namespace {

using nlohmann::json;

constexpr int kBootstrapDraws = 200;
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
    if (tuned == "6") return "binomial_tree";
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

std::string machine_of(const report::Report& report) {
  std::set<std::string> devices;
  for (const auto& rank : report.context.ranks) devices.insert(rank.device);
  std::string text;
  for (const auto& device : devices) text += (text.empty() ? "" : ", ") + device;
  return text + " on " + std::to_string(report.context.hosts.size()) + " host(s)";
}

json interval_json(const ParameterInterval& interval) { return {interval.value, interval.low, interval.high}; }
ParameterInterval interval_from(const json& value, const std::string& what) {
  if (!value.is_array() || value.size() != 3) throw InputError(what + ": expected [value, low, high]");
  ParameterInterval interval;
  for (std::size_t i = 0; i < 3; ++i) {
    if (!value[i].is_number() || !std::isfinite(value[i].get<double>()) || value[i].get<double>() < 0) {
      throw InputError(what + ": expected three non-negative numbers");
    }
  }
  interval = {value[0].get<double>(), value[1].get<double>(), value[2].get<double>()};
  return interval;
}

std::string number_text(double value, const char* format = "%.3g") {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

}  // namespace

std::vector<AlgorithmForm> algorithm_forms(const std::string& benchmark) {
  const AlgorithmForm ring_all_reduce{"ring", ring_all_reduce_steps, ring_all_reduce_share};
  const AlgorithmForm recursive_doubling{"recursive_doubling", log2_steps, log2_steps};
  const AlgorithmForm halving_doubling{"halving_doubling", twice_log2_steps, ring_all_reduce_share};
  const AlgorithmForm binomial_tree{"binomial_tree", log2_steps, log2_steps};
  const AlgorithmForm linear{"linear", all_but_one, all_but_one};
  const AlgorithmForm ring{"ring", all_but_one, all_but_one_share};
  const AlgorithmForm gathering_tree{"binomial_tree", log2_steps, all_but_one_share};
  if (benchmark == "all_reduce") return {ring_all_reduce, recursive_doubling, halving_doubling};
  if (benchmark == "broadcast") return {binomial_tree, linear, {"scatter_allgather", scatter_allgather_steps, ring_all_reduce_share}};
  if (benchmark == "reduce") return {binomial_tree, linear};
  if (benchmark == "all_gather" || benchmark == "reduce_scatter") {
    return {ring, {"recursive_doubling", log2_steps, all_but_one_share}};
  }
  if (benchmark == "alltoall") return {{"pairwise", all_but_one, all_but_one_share}, {"bruck", log2_steps, half_log2_steps}};
  if (benchmark == "gather" || benchmark == "scatter") return {{"linear", all_but_one, all_but_one_share}, gathering_tree};
  if (benchmark == "sendrecv") return {{"direct", one, one}};
  return {};
}

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
  model.machine = machine_of(reports.front().report);

  // series key -> world size -> size -> times
  std::map<SeriesKey, std::map<int, std::map<std::uint64_t, std::vector<double>>>> grouped;
  std::map<SeriesKey, std::string> families;
  for (const auto& loaded : reports) {
    for (const auto& row : loaded.report.results) {
      // Each row's robust figure (summarize/figure.h): its p10 iteration time, or its minimum
      // when it has too few iterations for the quantile.
      const double time = row.iterations >= static_cast<int>(values_needed(RunFigure::kP10)) ? row.time_us.p10 : row.time_us.min;
      if (!(time > 0) || row.bytes == 0) continue;
      const SeriesKey key{{"benchmark", loaded.report.benchmark}, {"backend", row.backend}, {"algorithm", row.algorithm},
                          {"dtype", row.dtype},  {"op", row.op},          {"root", std::to_string(row.root)},
                          {"placement", row.placement}};
      grouped[key][loaded.report.context.world_size][row.bytes].push_back(time);
      const std::string family = bus_factor_family(loaded, row);
      if (!family.empty() && (families[key].empty() || families[key] == "1 or 2(p-1)/p")) families[key] = family;
    }
  }
  if (grouped.empty()) throw InputError("model fit: no timed row with a size above 0 bytes in the reports");

  std::mt19937 random(seed);
  for (const auto& [key, by_world] : grouped) {
    SeriesModel series;
    series.key = key;
    const std::string& benchmark = key.front().second;
    series.bus_factor = families[key] == "1 or 2(p-1)/p" ? (benchmark == "all_reduce" ? "2(p-1)/p" : "1") : families[key];
    std::vector<FitPoint> all_points_raw;
    std::vector<std::pair<int, SizeTimes>> per_world;
    series.smallest_bytes = UINT64_MAX;
    for (const auto& [world_size, by_size] : by_world) {
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
      per_world.emplace_back(world_size, times);
    }
    const auto forms = algorithm_forms(benchmark);
    if (forms.empty()) {
      series.notes.push_back("no cost form for " + benchmark + ": fitted per world size only");
    } else if (per_world.size() < 2) {
      series.notes.push_back("one world size: nothing to extrapolate across world sizes from (measure two or more)");
    } else {
      const std::string named = form_named_by(benchmark, key[2].second);
      std::optional<AcrossWorldSizes> best;
      std::string tried;
      for (const auto& form : forms) {
        if (!named.empty() && form.name != named) continue;
        std::vector<FitPoint> points;
        for (const auto& [p, times] : per_world) {
          for (const auto& [bytes, time] : times) {
            points.push_back({form.latency_steps(p), form.bandwidth_share(p) * static_cast<double>(bytes), time});
          }
        }
        const LinearFit fit = fit_linear(points);
        const double rms = std::sqrt(fit.sse / static_cast<double>(points.size()));
        tried += (tried.empty() ? "" : ", ") + form.name + " " + number_text(100 * rms, "%.1f") + "%";
        if (!best || rms < best->rms_relative_error) {
          std::mt19937 draws(seed);
          const BootstrappedFit bootstrapped = bootstrap_fit(points, draws);
          best = AcrossWorldSizes{form.name, named.empty(), bootstrapped.alpha_us, bootstrapped.beta_gbps, bootstrapped.draws, rms};
        }
      }
      if (best) {
        series.across = best;
        if (best->chosen_by_fit) {
          series.notes.push_back("algorithm '" + key[2].second + "' names no form: " + best->form + " fits best (rms relative error: " + tried + ")");
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
      worlds.push_back({{"world_size", world.world_size}, {"pieces", pieces}});
    }
    json entry = {{"key", key}, {"bus_factor", one.bus_factor}, {"smallest_bytes", one.smallest_bytes}, {"largest_bytes", one.largest_bytes},
                  {"per_world_size", worlds}, {"notes", one.notes}};
    if (one.across) {
      json draws = json::array();
      for (const auto& [alpha, beta] : one.across->bootstrap) draws.push_back({alpha, beta});
      entry["across_world_sizes"] = {{"form", one.across->form}, {"chosen_by_fit", one.across->chosen_by_fit},
                                     {"alpha_us", interval_json(one.across->alpha_us)}, {"beta_gbps", interval_json(one.across->beta_gbps)},
                                     {"rms_relative_error", one.across->rms_relative_error}, {"bootstrap", draws}};
    }
    series.push_back(entry);
  }
  return {{"collbench_model", 1}, {"figure", model.figure}, {"machine", model.machine}, {"sources", model.sources}, {"series", series}};
}

Model model_from_json(const json& document, const std::string& path) {
  const auto bad = [&](const std::string& why) { return InputError(path + ": not a collbench model (" + why + ")"); };
  if (!document.is_object() || document.value("collbench_model", 0) != 1) throw bad("no \"collbench_model\": 1");
  Model model;
  try {
    model.figure = document.at("figure").get<std::string>();
    model.machine = document.at("machine").get<std::string>();
    for (const auto& entry : document.at("series")) {
      SeriesModel series;
      for (const char* name : {"benchmark", "backend", "algorithm", "dtype", "op", "root", "placement"}) {
        series.key.emplace_back(name, entry.at("key").at(name).get<std::string>());
      }
      series.bus_factor = entry.at("bus_factor").get<std::string>();
      series.smallest_bytes = entry.at("smallest_bytes").get<std::uint64_t>();
      series.largest_bytes = entry.at("largest_bytes").get<std::uint64_t>();
      for (const auto& world : entry.at("per_world_size")) {
        WorldSizeFit fit;
        fit.world_size = world.at("world_size").get<int>();
        if (fit.world_size < 1) throw bad("world_size below 1");
        for (const auto& piece : world.at("pieces")) {
          HockneyPiece one;
          one.from_bytes = piece.at("from_bytes").get<std::uint64_t>();
          one.to_bytes = piece.at("to_bytes").get<std::uint64_t>();
          one.alpha_us = interval_from(piece.at("alpha_us"), path + ": alpha_us");
          one.beta_gbps = interval_from(piece.at("beta_gbps"), path + ": beta_gbps");
          if (!(one.beta_gbps.value > 0)) throw bad("beta_gbps must be above 0");
          fit.pieces.push_back(one);
        }
        if (fit.pieces.empty()) throw bad("a world size without pieces");
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
        for (const auto& draw : across.at("bootstrap")) {
          const ParameterInterval pair{draw.at(0).get<double>(), draw.at(1).get<double>(), 0};
          if (!(pair.low > 0) || !(pair.value >= 0)) throw bad("a bootstrap draw out of range");
          fit.bootstrap.emplace_back(pair.value, pair.low);
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

Document fit_document(const Model& model) {
  Document document;
  Table per_world;
  per_world.title = "Hockney fits per world size: t = alpha + bytes / beta (95% bootstrap intervals)";
  per_world.group_columns = {"series"};
  per_world.columns = {{"ranks"}, {"from_bytes"}, {"to_bytes"}, {"alpha_us", 3}, {"alpha_low", 3}, {"alpha_high", 3},
                       {"beta_gbps", 3},  {"beta_low", 3},  {"beta_high", 3}, {"points"}, {"rms_error_pct", 1}};
  Table across;
  across.title = "Across world sizes: t = a(p) alpha + b(p) bytes / beta";
  across.group_columns = {"series"};
  across.columns = {{"form"}, {"chosen_by_fit"}, {"alpha_us", 3}, {"alpha_low", 3}, {"alpha_high", 3}, {"beta_gbps", 3},
                    {"beta_low", 3}, {"beta_high", 3}, {"rms_error_pct", 1}};
  for (const auto& series : model.series) {
    Table::Group group{{describe_key(series.key)}, {}};
    for (const auto& world : series.per_world_size) {
      for (const auto& piece : world.pieces) {
        group.rows.push_back({world.world_size, piece.from_bytes, piece.to_bytes, piece.alpha_us.value, piece.alpha_us.low, piece.alpha_us.high,
                              piece.beta_gbps.value, piece.beta_gbps.low, piece.beta_gbps.high, piece.points, 100 * piece.rms_relative_error});
      }
    }
    per_world.groups.push_back(group);
    if (series.across) {
      const auto& a = *series.across;
      across.groups.push_back({{describe_key(series.key)},
                               {{a.form, a.chosen_by_fit ? "yes" : "no", a.alpha_us.value, a.alpha_us.low, a.alpha_us.high, a.beta_gbps.value,
                                 a.beta_gbps.low, a.beta_gbps.high, 100 * a.rms_relative_error}}});
    }
    for (const auto& note : series.notes) document.notes.push_back(describe_key(series.key) + ": " + note);
  }
  document.tables.push_back(per_world);
  if (!across.groups.empty()) document.tables.push_back(across);
  document.notes.push_back("figure per row: the " + model.figure + " time; machine: " + model.machine);
  return document;
}

Document predict_document(const Model& model, const PredictOptions& options) {
  if (options.world_size < 1) throw InputError("model predict: --np must be at least 1");
  if (options.ranks_per_host < 0 || options.ranks_per_host > options.world_size) {
    throw InputError("model predict: --ranks-per-host must lie between 1 and --np");
  }
  const bool spans_hosts = options.ranks_per_host > 0 && options.ranks_per_host < options.world_size;
  if ((options.inter_latency_us || options.inter_bandwidth_gbps) && !spans_hosts) {
    throw InputError("model predict: --inter-latency and --inter-bandwidth need ranks on several hosts (--ranks-per-host below --np)");
  }
  Document document;
  Table table;
  table.title = "Predicted at " + std::to_string(options.world_size) + " ranks" +
                (spans_hosts ? ", " + std::to_string(options.ranks_per_host) + " per host" : "");
  table.group_columns = {"series"};
  table.columns = {{"bytes"}, {"time_us", 2}, {"low_us", 2}, {"high_us", 2}, {"busbw_gbps", 3}, {"dominant"}, {"extrapolated"}};
  for (const auto& series : model.series) {
    const std::string name = describe_key(series.key);
    const int p = options.world_size;
    std::vector<std::uint64_t> sizes = options.sizes;
    if (sizes.empty()) {
      for (std::uint64_t bytes = series.smallest_bytes; bytes && bytes <= series.largest_bytes; bytes *= 2) sizes.push_back(bytes);
    }
    int fitted_largest_world = 0;
    for (const auto& world : series.per_world_size) fitted_largest_world = std::max(fitted_largest_world, world.world_size);
    const WorldSizeFit* same_world = nullptr;
    for (const auto& world : series.per_world_size) {
      if (world.world_size == p) same_world = &world;
    }
    if (!series.across && !same_world) {
      throw InputError("model predict: " + name + " was fitted at world size " + std::to_string(fitted_largest_world) +
                       " only: no world sizes to extrapolate from (fit reports of two world sizes or more)");
    }
    const AlgorithmForm* form = nullptr;
    const auto forms = algorithm_forms(series.key.front().second);
    if (series.across) {
      for (const auto& candidate : forms) {
        if (candidate.name == series.across->form) form = &candidate;
      }
    }
    Table::Group group{{name}, {}};
    for (std::uint64_t bytes : sizes) {
      const double m = static_cast<double>(bytes);
      // Time from (alpha, beta) and the link between hosts: a ring or tree crosses the slowest link
      // in every step, so the slower of the fit and the link sets each term (first-order model).
      const auto time_with = [&](double alpha_us, double beta_gbps, double& latency_part, double& bandwidth_part) {
        if (options.inter_latency_us) alpha_us = std::max(alpha_us, *options.inter_latency_us);
        if (options.inter_bandwidth_gbps) beta_gbps = std::min(beta_gbps, *options.inter_bandwidth_gbps);
        const double bytes_per_us = beta_gbps * 1e3;
        latency_part = form ? form->latency_steps(p) * alpha_us : alpha_us;
        bandwidth_part = (form ? form->bandwidth_share(p) : 1.0) * m / bytes_per_us;
        return latency_part + bandwidth_part;
      };
      double latency_part = 0, bandwidth_part = 0, time = 0, low = 0, high = 0;
      if (same_world && !options.inter_latency_us && !options.inter_bandwidth_gbps) {
        // Measured at this world size: the piece holding this size (the nearest at the ends).
        const HockneyPiece* piece = &same_world->pieces.front();
        for (const auto& candidate : same_world->pieces) {
          if (bytes >= candidate.from_bytes) piece = &candidate;
        }
        const AlgorithmForm* saved = form;
        form = nullptr;
        time = time_with(piece->alpha_us.value, piece->beta_gbps.value, latency_part, bandwidth_part);
        double unused_latency = 0, unused_bandwidth = 0;
        const double a = time_with(piece->alpha_us.low, piece->beta_gbps.high, unused_latency, unused_bandwidth);
        const double b = time_with(piece->alpha_us.high, piece->beta_gbps.low, unused_latency, unused_bandwidth);
        low = std::min(a, b);
        high = std::max(a, b);
        form = saved;
      } else {
        time = time_with(series.across->alpha_us.value, series.across->beta_gbps.value, latency_part, bandwidth_part);
        std::vector<double> draws;
        for (const auto& [alpha, beta] : series.across->bootstrap) {
          double unused_latency = 0, unused_bandwidth = 0;
          draws.push_back(time_with(alpha, beta, unused_latency, unused_bandwidth));
        }
        low = draws.empty() ? time : percentile(draws, 0.025);
        high = draws.empty() ? time : percentile(draws, 0.975);
      }
      const double algbw_gbps = m / time / 1e3;
      const bool outside_sizes = bytes < series.smallest_bytes || bytes > series.largest_bytes;
      const bool outside_ranks = p > 2 * fitted_largest_world;
      std::string extrapolated = outside_ranks ? "ranks" : "";
      if (outside_sizes) extrapolated += extrapolated.empty() ? "size" : "+size";
      if (options.inter_latency_us || options.inter_bandwidth_gbps) extrapolated += extrapolated.empty() ? "link" : "+link";
      group.rows.push_back({bytes, time, low, high, p > 1 ? json(algbw_gbps * bus_factor_at(series.bus_factor, p)) : json(nullptr),
                            latency_part >= bandwidth_part ? "latency" : "bandwidth", extrapolated.empty() ? "no" : extrapolated});
    }
    table.groups.push_back(group);
    if (series.across) {
      document.notes.push_back(name + ": " + series.across->form + " cost form" + (series.across->chosen_by_fit ? " (chosen by fit)" : "") +
                               ", fitted from world sizes up to " + std::to_string(fitted_largest_world));
    }
    if (p > 2 * fitted_largest_world) {
      document.notes.push_back(name + ": " + std::to_string(p) + " ranks is far outside the fitted world sizes (up to " +
                               std::to_string(fitted_largest_world) + "): the interval covers the fit's noise, not the model's form");
    }
  }
  if (spans_hosts && (options.inter_latency_us || options.inter_bandwidth_gbps)) {
    document.notes.push_back("the link between hosts replaces the fit's alpha or beta where it is slower (every step of a ring or tree "
                             "crosses the slowest link); intra-host and inter-host parameters are not fitted apart yet");
  }
  document.tables.push_back(table);
  return document;
}

}  // namespace collbench::summarize
