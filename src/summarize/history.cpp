#include "summarize/history.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <numeric>
#include <random>

#include "summarize/input_error.h"

namespace collbench::summarize {
namespace {

// The split of values[lo, hi) that best separates two means, and its strength: the standardized
// difference of means |mean(left) - mean(right)| * sqrt(nl * nr / n), as a CUSUM statistic. Every
// candidate keeps at least `min_segment` values a side.
std::pair<std::size_t, double> best_split(const std::vector<double>& values, std::size_t lo, std::size_t hi, std::size_t min_segment) {
  const std::size_t n = hi - lo;
  double total = 0;
  for (std::size_t i = lo; i < hi; ++i) total += values[i];
  double left_sum = 0;
  std::pair<std::size_t, double> best{lo, -1};
  for (std::size_t split = lo + 1; split < hi; ++split) {
    left_sum += values[split - 1];
    const std::size_t left = split - lo, right = n - left;
    if (left < min_segment || right < min_segment) continue;
    const double difference = left_sum / static_cast<double>(left) - (total - left_sum) / static_cast<double>(right);
    const double strength = std::fabs(difference) * std::sqrt(static_cast<double>(left * right) / static_cast<double>(n));
    if (strength > best.second) best = {split, strength};
  }
  return best;
}

double median_of(const std::vector<double>& values, std::size_t lo, std::size_t hi) {
  return median(std::vector<double>(values.begin() + static_cast<std::ptrdiff_t>(lo), values.begin() + static_cast<std::ptrdiff_t>(hi)));
}

struct Split {
  std::size_t index;
  double p_value;
};

void segment(const std::vector<double>& logs, std::size_t lo, std::size_t hi, const HistoryOptions& options, std::vector<Split>& found) {
  if (hi - lo < 2 * options.min_segment) return;
  const auto [split, strength] = best_split(logs, lo, hi, options.min_segment);
  if (strength <= 0) return;
  // Too small to matter: no test needed, and no split inside either (the segment is one level).
  if (std::fabs(median_of(logs, split, hi) - median_of(logs, lo, split)) < std::log1p(options.min_change)) return;
  // How often does a shuffled segment (no change anywhere) split at least this well? Seeded by
  // the segment, so the answer is the same every time for the same data.
  std::mt19937_64 generator(0x5eed0000ULL + lo * 1000003ULL + hi);
  std::vector<double> shuffled(logs.begin() + static_cast<std::ptrdiff_t>(lo), logs.begin() + static_cast<std::ptrdiff_t>(hi));
  int as_strong = 0;
  for (int permutation = 0; permutation < options.permutations; ++permutation) {
    std::shuffle(shuffled.begin(), shuffled.end(), generator);
    if (best_split(shuffled, 0, shuffled.size(), options.min_segment).second >= strength * (1 - 1e-12)) ++as_strong;
  }
  const double p_value = (as_strong + 1.0) / (options.permutations + 1.0);
  if (p_value >= options.alpha) return;
  found.push_back({split, p_value});
  segment(logs, lo, split, options, found);
  segment(logs, split, hi, options, found);
}

std::string percent_text(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g%%", 100 * fraction);
  return text;
}

}  // namespace

std::optional<std::int64_t> parse_utc_time(const std::string& text) {
  std::tm fields{};
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &year, &month, &day, &hour, &minute, &second) != 6) return std::nullopt;
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
  std::vector<Split> found;
  segment(logs, 0, logs.size(), options, found);
  std::sort(found.begin(), found.end(), [](const Split& a, const Split& b) { return a.index < b.index; });
  std::vector<HistoryChange> changes;
  for (std::size_t i = 0; i < found.size(); ++i) {
    const std::size_t from = i == 0 ? 0 : found[i - 1].index;
    const std::size_t to = i + 1 < found.size() ? found[i + 1].index : values.size();
    HistoryChange change;
    change.index = found[i].index;
    change.before = median_of(values, from, found[i].index);
    change.after = median_of(values, found[i].index, to);
    change.change = higher_is_better ? change.before / change.after - 1 : change.after / change.before - 1;
    change.p_value = found[i].p_value;
    changes.push_back(change);
  }
  return changes;
}

std::size_t HistoryResult::regressions() const {
  return static_cast<std::size_t>(std::count_if(series.begin(), series.end(), [](const HistorySeries& s) { return s.regressed(); }));
}

HistoryResult compute_history(const std::vector<LoadedReport>& reports, const HistoryOptions& options) {
  if (options.min_change < 0 || options.alpha <= 0 || options.alpha >= 1) throw InputError("history: --min-change >= 0 and 0 < --alpha < 1");
  if (options.permutations < 19) throw InputError("history: --permutations must be at least 19");
  if (options.min_segment < 1) throw InputError("history: --min-segment must be at least 1");
  const auto& kind = kind_of(reports);
  const bool timed = kind.time_path != nullptr;
  bool every_row_sampled = timed;
  for (const auto& observation : observations(reports)) every_row_sampled = every_row_sampled && !observation.row->samples_us.empty();
  // One figure per (row, run), as compare takes it; cycles of one run give their median.
  std::map<SeriesKey, std::map<const LoadedReport*, std::vector<double>>> figures;
  std::map<SeriesKey, std::uint64_t> sizes;
  for (const auto& observation : observations(reports)) {
    const auto& row = *observation.row;
    std::optional<double> value = every_row_sampled ? median(row.samples_us) : row.time_us ? row.time_us : headline(row);
    if (!value || *value <= 0) continue;
    const SeriesKey key = row_identity(observation);
    figures[key][observation.source].push_back(*value);
    sizes[key] = row.size;
  }
  for (const auto& loaded : reports) {
    if (!parse_utc_time(loaded.report.context.start_time)) {
      throw InputError(loaded.path + ": context.start_time '" + loaded.report.context.start_time + "' is not an ISO 8601 UTC time");
    }
  }
  HistoryResult result;
  result.reports = reports.size();
  result.measure = timed ? "us" : kind.figures.front().path;
  result.figure = !timed ? "each run's headline rate" : every_row_sampled ? "each run's median per-iteration time" : "each run's mean time";
  for (const auto& [key, by_run] : figures) {
    HistorySeries series;
    series.key = key;
    series.size = sizes[key];
    for (const auto& [run, values] : by_run) {
      series.points.push_back({run->report.context.start_time, *parse_utc_time(run->report.context.start_time), run->path, median(values)});
    }
    std::stable_sort(series.points.begin(), series.points.end(), [](const HistoryPoint& a, const HistoryPoint& b) {
      return a.epoch_s != b.epoch_s ? a.epoch_s < b.epoch_s : a.time < b.time;
    });
    std::vector<double> values;
    for (const auto& point : series.points) values.push_back(point.value);
    series.changes = find_change_points(values, options, !timed);
    result.series.push_back(std::move(series));
  }
  std::stable_sort(result.series.begin(), result.series.end(), [](const HistorySeries& a, const HistorySeries& b) {
    const SeriesKey a_rest(a.key.begin(), a.key.end() - 1), b_rest(b.key.begin(), b.key.end() - 1);
    return a_rest != b_rest ? a_rest < b_rest : a.size < b.size;
  });
  return result;
}

Document history_document(const HistoryResult& result, const HistoryOptions& options) {
  Document document;
  Table table;
  table.title = "Changes";
  Table::Group group;
  std::size_t changes = 0;
  for (const auto& series : result.series) {
    for (const auto& change : series.changes) {
      if (table.columns.empty()) {
        for (const auto& [name, value] : series.key) table.columns.push_back({name == "world_size" ? "np" : name});
        for (const Column& column : std::vector<Column>{{"when"}, {"report"}, {"before_" + result.measure, 2}, {"after_" + result.measure, 2},
                                                        {"change_%", 1}, {"direction"}, {"p_value", 4}}) {
          table.columns.push_back(column);
        }
      }
      ++changes;
      std::vector<nlohmann::json> cells = key_cells(series.key);
      cells[1] = std::stoi(series.key[1].second);
      if (series.key.back().second == std::to_string(series.size)) cells.back() = series.size;
      const auto& point = series.points[change.index];
      for (const nlohmann::json& cell : std::vector<nlohmann::json>{point.time, point.path, change.before, change.after, 100 * change.change,
                                                                     change.change > 0 ? "slower" : "faster", change.p_value}) {
        cells.push_back(cell);
      }
      group.rows.push_back(std::move(cells));
    }
  }
  if (changes) {
    table.groups.push_back(std::move(group));
    document.tables.push_back(std::move(table));
  }
  std::string first, last;
  for (const auto& series : result.series) {
    for (const auto& point : series.points) {
      if (first.empty() || point.time < first) first = point.time;
      if (last.empty() || point.time > last) last = point.time;
    }
  }
  document.notes.push_back(std::to_string(changes) + " change(s) in " + std::to_string(result.series.size()) + " series over " +
                           std::to_string(result.reports) + " reports (" + first + " .. " + last + ")");
  for (const auto& series : result.series) {
    if (series.regressed()) {
      document.notes.push_back("regression: the latest change of " + describe_key(series.key) + " is " +
                               percent_text(series.changes.back().change) + " slower (since " +
                               series.points[series.changes.back().index].time + ")");
    }
  }
  char rule[300];
  std::snprintf(rule, sizeof rule,
                "%s; binary segmentation, each split kept when a permutation test (%d permutations) gives p < %.3g and the medians "
                "either side differ by at least %s; at least %zu runs between changes",
                result.figure.c_str(), options.permutations, options.alpha, percent_text(options.min_change).c_str(), options.min_segment);
  document.notes.push_back(rule);
  document.extra["changes"] = changes;
  document.extra["regressions"] = result.regressions();
  return document;
}

}  // namespace collbench::summarize
