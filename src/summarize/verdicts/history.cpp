#include "summarize/verdicts/history.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <numeric>
#include <random>

#include "core/printable.h"
#include "core/stats.h"
#include "summarize/verdicts/fingerprint.h"
#include "summarize/common/group_series.h"
#include "summarize/common/input_error.h"
#include "summarize/common/run_stats.h"

namespace collbench::summarize {
namespace {

// E-divisive (Matteson and James 2014, as in MongoDB's and Apache Otava's change detection): a
// split of a segment into X and Y scores
//   Q = n m / (n + m) * (2 mean d(x, y) - mean d(x, x') - mean d(y, y')),  d(a, b) = |a - b|^exponent,
// the energy distance of the two parts, which grows with any difference of their distributions and,
// built on distances (exponent < 2) rather than squares, is not dragged towards one wild run as a
// difference of means is. Returns the best split (an index into `values`) and its Q; every candidate keeps at
// least `min_segment` values a side. O(n^2): the sums are updated as the split moves right.
// `slowdowns_only`: only splits whose later part has the higher mean (the all-rows series' one-sided test).
std::pair<std::size_t, double> best_energy_split(const std::vector<double>& values, std::size_t min_segment, double exponent,
                                                 bool slowdowns_only = false) {
  const std::size_t n = values.size();
  const double total = std::accumulate(values.begin(), values.end(), 0.0);
  double left_sum = 0;
  const auto distance = [exponent](double a, double b) { return std::pow(std::fabs(a - b), exponent); };
  double between = 0, within_left = 0, within_right = 0;
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t k = j + 1; k < n; ++k) within_right += distance(values[j], values[k]);
  }
  std::pair<std::size_t, double> best{0, -1};
  for (std::size_t split = 1; split < n; ++split) {
    const std::size_t moved = split - 1;  // from the right part to the left
    double to_left = 0, to_right = 0;
    for (std::size_t i = 0; i < moved; ++i) to_left += distance(values[i], values[moved]);
    for (std::size_t j = moved + 1; j < n; ++j) to_right += distance(values[moved], values[j]);
    within_left += to_left;
    within_right -= to_right;
    between += to_right - to_left;
    left_sum += values[moved];
    const double left = static_cast<double>(split), right = static_cast<double>(n - split);
    if (split < min_segment || n - split < min_segment) continue;
    if (slowdowns_only && (total - left_sum) / right <= left_sum / left) continue;
    const double energy = 2 * between / (left * right) - (split > 1 ? 2 * within_left / (left * (left - 1)) : 0) -
                          (n - split > 1 ? 2 * within_right / (right * (right - 1)) : 0);
    const double score = left * right / static_cast<double>(n) * energy;
    if (score > best.second) best = {split, score};
  }
  return best;
}

double median_of_range(const std::vector<double>& values, std::size_t lo, std::size_t hi) {
  return median(std::vector<double>(values.begin() + static_cast<std::ptrdiff_t>(lo), values.begin() + static_cast<std::ptrdiff_t>(hi)));
}

struct Split {
  std::size_t index;
  double p_value;
};

struct Segment {
  std::size_t lo, hi;
  std::size_t split = 0;  // its best split and score, while it may still be split
  double score = -1;
};

std::vector<double> slice(const std::vector<double>& values, std::size_t lo, std::size_t hi) {
  return std::vector<double>(values.begin() + static_cast<std::ptrdiff_t>(lo), values.begin() + static_cast<std::ptrdiff_t>(hi));
}

// E-divisive's hierarchy: the strongest split over every segment is tested, and kept, one at a
// time. Its significance is a permutation test over the whole partition: each segment shuffled
// on its own (no change inside any), how often is the strongest split anywhere as strong? That is
// the false-change rate per kept change, --alpha. A segment whose strongest split moves the
// median by less than --min-change is final: the change would not count.
std::vector<Split> e_divisive(const std::vector<double>& logs, const HistoryOptions& options) {
  std::vector<Split> found;
  std::vector<Segment> open{{0, logs.size()}};
  std::mt19937_64 generator(0x5eed0000ULL + logs.size());  // fixed: the same data gives the same answer
  while (true) {
    // Score what may still split; close the rest.
    std::vector<Segment> still_open;
    for (Segment segment : open) {
      if (segment.hi - segment.lo < 2 * options.min_segment) continue;
      const auto [split, score] = best_energy_split(slice(logs, segment.lo, segment.hi), options.min_segment, options.exponent);
      if (score <= 0) continue;
      const std::size_t at = segment.lo + split;
      if (std::fabs(median_of_range(logs, at, segment.hi) - median_of_range(logs, segment.lo, at)) < std::log1p(options.min_change)) continue;
      segment.split = at;
      segment.score = score;
      still_open.push_back(segment);
    }
    open = std::move(still_open);
    if (open.empty()) break;
    const auto strongest = std::max_element(open.begin(), open.end(), [](const Segment& a, const Segment& b) { return a.score < b.score; });
    int as_strong = 0;
    std::vector<std::vector<double>> shuffled;
    for (const Segment& segment : open) shuffled.push_back(slice(logs, segment.lo, segment.hi));
    for (int permutation = 0; permutation < options.permutations; ++permutation) {
      double strongest_shuffled = -1;
      for (auto& values : shuffled) {
        std::shuffle(values.begin(), values.end(), generator);
        strongest_shuffled = std::max(strongest_shuffled, best_energy_split(values, options.min_segment, options.exponent).second);
      }
      if (strongest_shuffled >= strongest->score * (1 - 1e-12)) ++as_strong;
    }
    const double p_value = (as_strong + 1.0) / (options.permutations + 1.0);
    if (p_value >= options.alpha) break;
    found.push_back({strongest->split, p_value});
    const Segment parent = *strongest;
    open.erase(strongest);
    open.push_back({parent.lo, parent.split});
    open.push_back({parent.split, parent.hi});
  }
  return found;
}

// The all-rows series' test, one-sided: the strongest split whose later runs are slower (energy
// statistic, slowdowns only), its p from permutations of the runs. A regression question has one
// side, and a one-sided test needs half the runs' evidence: 8 runs left after the set-aside can
// give p = 1/56, where E-divisive's two-sided test cannot go below 2/56. It must move the median by
// --min-change, and still hold there in the latest --min-segment runs (a slowdown since fixed is
// not one now).
std::optional<HistoryChange> latest_slowdown(const std::vector<double>& values, const HistoryOptions& options) {
  if (values.size() < 2 * options.min_segment) return std::nullopt;
  std::vector<double> logs;
  for (double value : values) logs.push_back(std::log(value));
  const auto [split, score] = best_energy_split(logs, options.min_segment, options.exponent, true);
  if (score <= 0) return std::nullopt;
  HistoryChange change;
  change.index = split;
  change.before = median_of_range(values, 0, split);
  change.after = median_of_range(values, split, values.size());
  change.change = change.after / change.before - 1;
  const double latest = median_of_range(values, values.size() - options.min_segment, values.size());
  if (change.change < options.min_change || latest / change.before - 1 < options.min_change) return std::nullopt;
  std::mt19937_64 generator(0x5eed0000ULL + logs.size());
  int as_strong = 0;
  for (int permutation = 0; permutation < options.permutations; ++permutation) {
    std::shuffle(logs.begin(), logs.end(), generator);
    if (best_energy_split(logs, options.min_segment, options.exponent, true).second >= score * (1 - 1e-12)) ++as_strong;
  }
  change.p_value = (as_strong + 1.0) / (options.permutations + 1.0);
  return change;
}

// The spread of log values about their segments' medians (one segment, or two either side of
// `split`): the run-to-run noise a step must stand out of. 1.4826 x the median absolute deviation,
// so that one wild run does not set it.
double spread_about_segments(const std::vector<double>& values, std::size_t split) {
  std::vector<double> residuals;
  const std::pair<std::size_t, std::size_t> segments[] = {{0, split}, {split, values.size()}};
  for (const auto& [lo, hi] : segments) {
    if (lo >= hi) continue;
    std::vector<double> logs;
    for (std::size_t i = lo; i < hi; ++i) logs.push_back(std::log(values[i]));
    const double center = median(logs);
    for (double value : logs) residuals.push_back(value - center);
  }
  return robust_spread(residuals);
}

// The runs after a step that a one-sided test at `alpha` needs to find it with 80 % power, with
// `before` runs before it and the runs' spread: a t test's sample sizes (the permutation test on the
// energy statistic is about as strong on a step), solved for the runs after. nullopt when no
// number of runs after would do (too few before).
std::optional<double> runs_after_to_find(double step, double spread, std::size_t before, double alpha) {
  if (spread <= 0) return 0.0;
  const double strength = (normal_quantile(1 - alpha) + normal_quantile(0.80)) * spread / step;  // sqrt(1/before + 1/after) at most 1/this
  const double room = 1 / (strength * strength) - 1 / static_cast<double>(before);
  if (!(room > 0)) return std::nullopt;
  return std::ceil(1 / room);
}

// PooledHistory's more_runs and detectable (pool_rows' last step), on the judged runs' values.
void add_runs_needed(PooledHistory& pooled, const std::vector<double>& values, const HistoryOptions& options, double alpha) {
  const std::size_t fewest = 2 * options.min_segment;
  if (values.size() < fewest) {
    pooled.too_few_runs = true;
    pooled.more_runs = fewest - values.size();
    return;
  }
  const std::size_t split = pooled.slowdown ? pooled.slowdown->index : 0;
  const double spread = spread_about_segments(values, split);
  // The smallest step found once it holds --min-segment runs, after every run judged so far.
  const double k = normal_quantile(1 - alpha) + normal_quantile(0.80);
  const double after = static_cast<double>(options.min_segment), before = static_cast<double>(values.size());
  pooled.detectable = std::max(options.min_change, std::expm1(k * spread * std::sqrt(1 / before + 1 / after)));
  if (!pooled.slowdown || pooled.regression) return;
  // A slowdown not yet below its alpha: the runs after it that would find it, less those made. The
  // permutation test's least p is one over the ways to choose the runs after the split, so it needs
  // at least as many runs after as make that below alpha, however steady the runs.
  const std::size_t made_after = values.size() - split;
  const auto needed = runs_after_to_find(std::log1p(pooled.slowdown->change), spread, split, alpha);
  if (!needed) return;  // none would: more runs before it are needed too
  std::size_t fewest_after = 1;
  for (double ways = static_cast<double>(split + 1); 1 / ways >= alpha && fewest_after < 1000;) {
    ++fewest_after;
    ways = ways * static_cast<double>(split + fewest_after) / static_cast<double>(fewest_after);
  }
  const auto after_needed = std::max(static_cast<std::size_t>(*needed), fewest_after);
  pooled.more_runs = after_needed > made_after ? after_needed - made_after : 1;
}

// Runs in time order: by start second, then by the start time's text (its fraction).
bool earlier(const HistoryPoint& a, const HistoryPoint& b) {
  return a.epoch_s != b.epoch_s ? a.epoch_s < b.epoch_s : a.time < b.time;
}

// The "all rows" series (PooledHistory). On the log scale: each row's figure less the row's median
// over the runs (negated for rates, so that up is slower), then the median over the rows, so one
// row disturbed alone does not move the run. Runs over kSetAsideFactor x the median of the faster
// half are set aside, unless the latest --min-segment runs all are: that is a lasting change.
PooledHistory pool_rows(const std::vector<HistorySeries>& series, const HistoryOptions& options, bool higher_is_better) {
  std::map<std::string, std::vector<double>> relative;  // report path -> one value per row
  std::map<std::string, HistoryPoint> runs;
  for (const auto& one : series) {
    std::vector<double> logs;
    for (const auto& point : one.points) logs.push_back(std::log(point.value));
    const double level = median(logs);
    for (std::size_t i = 0; i < logs.size(); ++i) {
      relative[one.points[i].path].push_back(higher_is_better ? level - logs[i] : logs[i] - level);
      runs.emplace(one.points[i].path, one.points[i]);
    }
  }
  std::vector<std::pair<HistoryPoint, double>> pooled;  // (run, log relative level), runs with every row
  for (const auto& [path, values] : relative) {
    if (values.size() == series.size()) pooled.emplace_back(runs.at(path), median(values));
  }
  std::stable_sort(pooled.begin(), pooled.end(), [](const auto& a, const auto& b) { return earlier(a.first, b.first); });
  PooledHistory result;
  result.rows = series.size();
  if (pooled.empty()) return result;
  std::vector<double> levels;
  for (const auto& [run, level] : pooled) levels.push_back(level);
  std::sort(levels.begin(), levels.end());
  const double usual = median(std::vector<double>(levels.begin(), levels.begin() + static_cast<std::ptrdiff_t>((levels.size() + 1) / 2)));
  const double limit = usual + std::log(kSetAsideFactor);
  const std::size_t tail = std::min(options.min_segment, pooled.size());
  const bool lasting = std::all_of(pooled.end() - static_cast<std::ptrdiff_t>(tail), pooled.end(), [&](const auto& run) { return run.second > limit; });
  std::vector<double> values;
  for (auto [run, level] : pooled) {
    run.value = std::exp(level);
    if (level > limit && !lasting) {
      result.set_aside.push_back(run);
      continue;
    }
    result.points.push_back(run);
    values.push_back(run.value);
  }
  result.slowdown = latest_slowdown(values, options);
  const double alpha = options.holm ? options.alpha / 2 : options.alpha;
  result.regression = result.slowdown && result.slowdown->p_value < alpha;
  add_runs_needed(result, values, options, alpha);
  return result;
}

std::string percent_text(double fraction) { return formatted("%.3g%%", 100 * fraction); }

}  // namespace

std::optional<std::int64_t> parse_utc_time(const std::string& text) {
  std::tm fields{};
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &year, &month, &day, &hour, &minute, &second) != 6) return std::nullopt;
  // The shape alone lets 9999-99-99T99:99:99Z through (timegm normalises it): real calendar values only.
  static constexpr int kDaysInMonth[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  if (year < 1970 || month < 1 || month > 12 || day < 1 || day > kDaysInMonth[month - 1] + (month == 2 && leap ? 1 : 0) || hour > 23 ||
      minute > 59 || second > 60 || hour < 0 || minute < 0 || second < 0) {
    return std::nullopt;
  }
  fields.tm_year = year - 1900;
  fields.tm_mon = month - 1;
  fields.tm_mday = day;
  fields.tm_hour = hour;
  fields.tm_min = minute;
  fields.tm_sec = second;
  return static_cast<std::int64_t>(timegm(&fields));
}

std::vector<HistoryChange> find_change_points(const std::vector<double>& values, const HistoryOptions& options, bool higher_is_better) {
  std::vector<double> logs;
  for (double value : values) logs.push_back(std::log(value));
  std::vector<Split> found = e_divisive(logs, options);
  std::sort(found.begin(), found.end(), [](const Split& a, const Split& b) { return a.index < b.index; });
  std::vector<HistoryChange> changes;
  for (std::size_t i = 0; i < found.size(); ++i) {
    const std::size_t from = i == 0 ? 0 : found[i - 1].index;
    const std::size_t to = i + 1 < found.size() ? found[i + 1].index : values.size();
    HistoryChange change;
    change.index = found[i].index;
    change.before = median_of_range(values, from, found[i].index);
    change.after = median_of_range(values, found[i].index, to);
    change.change = higher_is_better ? change.before / change.after - 1 : change.after / change.before - 1;
    change.p_value = found[i].p_value;
    changes.push_back(change);
  }
  return changes;
}

std::size_t HistoryResult::regressions() const {
  if (machine_mismatch) return 0;
  return static_cast<std::size_t>(std::count_if(series.begin(), series.end(), [](const HistorySeries& s) { return s.regressed(); })) +
         (all_rows && all_rows->regression ? 1 : 0);
}

HistoryResult compute_history(const std::vector<LoadedReport>& reports, const HistoryOptions& options) {
  if (options.min_change < 0 || options.alpha <= 0 || options.alpha >= 1) throw InputError("history: --min-change >= 0 and 0 < --alpha < 1");
  if (options.permutations < 19) throw InputError("history: --permutations must be at least 19");
  if (options.min_segment < 1) throw InputError("history: --min-segment must be at least 1");
  const auto& kind = kind_of(reports);
  const bool timed = kind.time_path != nullptr;
  for (const auto& loaded : reports) {
    if (!parse_utc_time(loaded.report.context.start_time)) {
      throw InputError(loaded.path + ": context.start_time '" + loaded.report.context.start_time + "' is not an ISO 8601 UTC time");
    }
  }
  HistoryResult result;
  std::vector<const LoadedReport*> runs;
  for (const auto& loaded : reports) runs.push_back(&loaded);
  result.state = judge_machine_states(runs, options.state_guard);
  // Another state that holds through the latest --min-segment runs is where the machine is now, not
  // an episode: setting it aside would hide whatever changed with it, so nothing is.
  std::stable_sort(runs.begin(), runs.end(), [](const LoadedReport* a, const LoadedReport* b) {
    const HistoryPoint a_point{a->report.context.start_time, *parse_utc_time(a->report.context.start_time), a->path, 0};
    const HistoryPoint b_point{b->report.context.start_time, *parse_utc_time(b->report.context.start_time), b->path, 0};
    return earlier(a_point, b_point);
  });
  if (!result.state.set_aside.empty() && runs.size() >= options.min_segment &&
      std::all_of(runs.end() - static_cast<std::ptrdiff_t>(options.min_segment), runs.end(),
                  [&](const LoadedReport* run) { return result.state.sets_aside(run->path); })) {
    result.state_lasting = true;
    result.state.set_aside.clear();
    result.state.cycles_set_aside.clear();
  }
  result.state_note = set_aside_note(result.state, runs);
  // One figure per (row, run), as compare takes it, over the run's cycles too.
  std::map<SeriesKey, std::map<const LoadedReport*, std::vector<double>>> figures;
  std::map<SeriesKey, std::uint64_t> sizes;
  std::size_t rows_fallen_back = 0;
  const std::vector<LoadedReport> per_group = rows_per_group(reports);  // each concurrent group a series
  if (const auto layouts = group_layouts(reports); layouts.size() > 1) {
    result.group_layouts = "group layouts differ between runs (" + joined(layouts, "; ") + "): each group, by its id and ranks, is a series of its own";
  }
  for (const auto& observation : observations(per_group)) {
    const auto& row = *observation.row;
    if (result.state.sets_aside(observation.source->path, row.cycle)) continue;
    std::optional<double> value = headline(row);
    if (const auto timed_figure = row_figure(row, options.figure)) {
      value = timed_figure->value;
      rows_fallen_back += timed_figure->fell_back_to_min ? 1 : 0;
    }
    if (!value || !(*value > 0) || !std::isfinite(std::log(*value))) continue;
    const SeriesKey key = row_identity(observation);
    figures[key][observation.source].push_back(*value);
    sizes[key] = row.size;
  }
  result.reports = reports.size();
  result.machine_mismatch = machine_change_within(reports);
  result.measure = timed ? "us" : kind.figures.front().path;
  result.figure = !timed ? "each run's headline rate, the median over its cycles (-N)" : describe_run_figure(options.figure, rows_fallen_back, true);
  for (const auto& [key, by_run] : figures) {
    HistorySeries series;
    series.key = key;
    series.size = sizes[key];
    for (const auto& [run, values] : by_run) {
      series.points.push_back({run->report.context.start_time, *parse_utc_time(run->report.context.start_time), run->path, median_of(values)});
    }
    std::stable_sort(series.points.begin(), series.points.end(), earlier);
    std::vector<double> values;
    for (const auto& point : series.points) values.push_back(point.value);
    series.changes = find_change_points(values, options, !timed);
    result.series.push_back(std::move(series));
  }
  std::stable_sort(result.series.begin(), result.series.end(), [](const HistorySeries& a, const HistorySeries& b) {
    const SeriesKey a_rest(a.key.begin(), a.key.end() - 1), b_rest(b.key.begin(), b.key.end() - 1);
    return a_rest != b_rest ? a_rest < b_rest : a.size < b.size;
  });
  if (options.pool_rows && result.series.size() >= 2) result.all_rows = pool_rows(result.series, options, !timed);
  // The family: every series. One whose latest change is not a slowdown takes part with p = 1.
  // With the all-rows series beside them, they share alpha with it.
  std::vector<double> p_values;
  for (const auto& series : result.series) p_values.push_back(series.latest_is_slower() ? series.changes.back().p_value : 1.0);
  result.series_judged = p_values.size();
  const double rows_alpha = result.all_rows ? options.alpha / 2 : options.alpha;
  const auto rejected = options.holm ? holm_rejections(p_values, rows_alpha) : std::vector<bool>{};
  for (std::size_t i = 0; i < result.series.size(); ++i) {
    auto& series = result.series[i];
    series.regression = series.latest_is_slower() && (options.holm ? static_cast<bool>(rejected[i]) : true);
  }
  return result;
}

namespace {

// history_document's parts. The changes of every series, one table row each; their number.
std::size_t add_changes_table(const HistoryResult& result, Document& document) {
  Table table;
  table.title = "Changes";
  Table::Group group;
  std::size_t changes = 0;
  for (const auto& series : result.series) {
    for (const auto& change : series.changes) {
      if (table.columns.empty()) {
        for (const auto& [name, value] : series.key) table.columns.push_back({name == "world_size" ? "np" : name});
        table.columns.insert(table.columns.end(), {{"when"}, {"report"}, {"before_" + result.measure, 2},
                                                   {"after_" + result.measure, 2}, {"change_%", 1}, {"direction"},
                                                   {"p_value", 4}});
      }
      ++changes;
      std::vector<nlohmann::json> cells = key_cells(series.key);
      cells[1] = std::stoi(series.key[1].second);
      if (series.key.back().second == std::to_string(series.size)) cells.back() = series.size;
      const auto& point = series.points[change.index];
      cells.insert(cells.end(), {point.time, point.path, change.before, change.after, 100 * change.change,
                                 change.change > 0 ? "slower" : "faster", change.p_value});
      group.rows.push_back(std::move(cells));
    }
  }
  if (changes) {
    table.groups.push_back(std::move(group));
    document.tables.push_back(std::move(table));
  }
  return changes;
}

// The verdicts: the span judged, each series' latest slowdown and the rows pooled.
void add_verdict_notes(const HistoryResult& result, const HistoryOptions& options, std::size_t changes, Document& document) {
  std::string first, last;
  for (const auto& series : result.series) {
    for (const auto& point : series.points) {
      if (first.empty() || point.time < first) first = point.time;
      if (last.empty() || point.time > last) last = point.time;
    }
  }
  document.notes.push_back(std::to_string(changes) + " change(s) in " + std::to_string(result.series.size()) + " series over " +
                           std::to_string(result.reports) + " reports (" + first + " .. " + last + ")");
  if (result.machine_mismatch) document.notes.push_back("verdict: UNKNOWN -- " + *result.machine_mismatch);
  if (result.group_layouts) document.notes.push_back(*result.group_layouts);
  for (const auto& series : result.series) {
    if (!series.latest_is_slower() || result.machine_mismatch) continue;
    const auto& latest = series.changes.back();
    const std::string p_text = formatted("%.3g", latest.p_value);
    const std::string what = "the latest change of " + describe_key(series.key) + " is " + percent_text(latest.change) + " slower (since " +
                             series.points[latest.index].time + ", p = " + p_text + ")";
    document.notes.push_back(series.regressed() ? "regression: " + what
                                                : "not a regression: " + what + ", not after Holm's correction over " +
                                                      std::to_string(result.series_judged) + " series");
  }
  if (result.all_rows && !result.machine_mismatch) {
    const PooledHistory& pooled = *result.all_rows;
    std::string what = "all " + std::to_string(pooled.rows) + " rows together: ";
    if (pooled.too_few_runs) {
      what += "too few runs to judge (" + std::to_string(pooled.points.size()) + " judged, " + std::to_string(2 * options.min_segment) +
              " needed: --min-segment on each side of a change); about " + std::to_string(*pooled.more_runs) + " more runs would decide it";
    } else if (!pooled.slowdown) {
      what += "no slowdown that holds to the latest runs";
    } else {
      const std::string p_text = formatted("%.3g", pooled.slowdown->p_value);
      what += percent_text(pooled.slowdown->change) + " slower since " + pooled.points[pooled.slowdown->index].time + " (p = " + p_text + ", one-sided" +
              (pooled.regression ? ")" : "; not below its alpha)");
      if (!pooled.regression) {
        what += pooled.more_runs ? "; undecided: about " + std::to_string(*pooled.more_runs) + " more runs at this level would decide it"
                                 : "; undecided: more runs before it and after it would decide it";
      }
    }
    if (pooled.detectable) {
      what += "; smallest lasting slowdown these runs could find: " + percent_text(*pooled.detectable) + " once it holds " +
              std::to_string(options.min_segment) + " runs (the runs' spread, 80 % power)";
    }
    if (!pooled.set_aside.empty()) {
      what += "; " + std::to_string(pooled.set_aside.size()) + " run(s) set aside, over " + percent_text(kSetAsideFactor - 1) +
              " slower than the faster half as a whole (the machine, not the code):";
      for (const auto& run : pooled.set_aside) what += " " + run.time;
    }
    document.notes.push_back((pooled.regression ? "regression: " : "") + what);
  }
  if (!result.state_note.empty()) document.notes.push_back(result.state_note);
  if (result.state_lasting) {
    document.notes.push_back("the latest " + std::to_string(options.min_segment) + " runs were all made in another machine state than the earlier ones "
                             "(their state probe): it lasts, so no run is set aside, and a change since then may be the machine's");
  }
}

// How the changes were found and judged.
void add_rule_notes(const HistoryResult& result, const HistoryOptions& options, Document& document) {
  char rule[400];
  std::snprintf(rule, sizeof rule,
                "%s; E-divisive (energy statistic, exponent %.3g), each change kept when a permutation test (%d permutations) gives p < %.3g and "
                "the medians either side differ by at least %s; a change holds for at least %zu runs; a latest slowdown is a regression %s",
                result.figure.c_str(), options.exponent, options.permutations, options.alpha, percent_text(options.min_change).c_str(), options.min_segment,
                options.holm ? "after Holm's correction over the series" : "per series, uncorrected");
  document.notes.push_back(rule);
  if (result.all_rows) {
    document.notes.push_back(std::string("all rows: each run's median over rows of the row's figure over its usual level, runs over ") +
                             percent_text(kSetAsideFactor - 1) + " slower than the faster half set aside; one split, slowdowns only, by the energy "
                             "statistic and a permutation test at " + (options.holm ? "alpha / 2 (the rows' Holm family takes the other half)" : "alpha"));
  }
}

// What scripts read: counts, where each regression starts, the pooled rows, the state guard.
void add_history_extra(const HistoryResult& result, std::size_t changes, Document& document) {
  document.extra["changes"] = changes;
  document.extra["regressions"] = result.regressions();
  // Where each regression starts (its first slower run's report), for scripts that check the place.
  // Each report once, though several series (and all rows) often regress at the same run.
  nlohmann::json regression_reports = nlohmann::json::array();
  const auto add_report = [&regression_reports](const std::string& path) {
    if (std::find(regression_reports.begin(), regression_reports.end(), path) == regression_reports.end()) regression_reports.push_back(path);
  };
  for (const auto& series : result.series) {
    if (series.regressed() && !result.machine_mismatch) add_report(series.points[series.changes.back().index].path);
  }
  if (result.all_rows && result.all_rows->regression && !result.machine_mismatch) {
    add_report(result.all_rows->points[result.all_rows->slowdown->index].path);
  }
  document.extra["regression_reports"] = regression_reports;
  if (result.all_rows) {
    const PooledHistory& pooled = *result.all_rows;
    nlohmann::json slowdown = nullptr, set_aside = nlohmann::json::array();
    if (pooled.slowdown) {
      const auto& change = *pooled.slowdown;
      slowdown = {{"report", pooled.points[change.index].path}, {"when", pooled.points[change.index].time}, {"before", change.before},
                  {"after", change.after}, {"change", change.change}, {"p_value", change.p_value}};
    }
    for (const auto& run : pooled.set_aside) set_aside.push_back(run.path);
    // Each judged run's value (1 = the usual level, 1.1 = 10 % slower), so a reader of a series need
    // not recompute it.
    nlohmann::json levels = nlohmann::json::array();
    for (const auto& run : pooled.points) levels.push_back({{"report", run.path}, {"level", run.value}});
    document.extra["all_rows"] = {{"rows", pooled.rows},         {"runs_judged", pooled.points.size()},
                                  {"levels", levels},            {"slowdown", slowdown},
                                  {"set_aside", set_aside},      {"regression", pooled.regression && !result.machine_mismatch},
                                  {"more_runs", report::json_or_null(pooled.more_runs)}, {"detectable_change", report::json_or_null(pooled.detectable)}};
  }
  document.extra["state_guard"] = state_guard_json(result.state);
  document.extra["state_guard"]["lasting"] = result.state_lasting;
  document.extra["series_judged"] = result.series_judged;
  document.extra["figure"] = result.figure;
  document.extra["machine_mismatch"] = report::json_or_null(result.machine_mismatch);
}

}  // namespace

Document history_document(const HistoryResult& result, const HistoryOptions& options) {
  Document document;
  const std::size_t changes = add_changes_table(result, document);
  add_verdict_notes(result, options, changes, document);
  add_rule_notes(result, options, document);
  add_history_extra(result, changes, document);
  return document;
}

}  // namespace collbench::summarize
