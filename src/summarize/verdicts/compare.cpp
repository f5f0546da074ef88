#include "summarize/verdicts/compare.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "core/printable.h"
#include "summarize/common/group_series.h"
#include "summarize/common/input_error.h"
#include "summarize/verdicts/machine_state.h"
#include "summarize/verdicts/recordings.h"

namespace collbench::summarize {
namespace {

// Beyond this many more runs a side the estimate is not worth a number: "many".
constexpr std::size_t kMostRunsWorthSaying = 100;

// One side of a row: its figures, one per run (report).
struct Side {
  RunFigure figure = RunFigure::kP10;
  std::uint64_t size = 0;
  std::map<const LoadedReport*, std::vector<double>> figures_by_run;  // several with cycles (-N)
  // By the run's file name, so that paired runs line up: A/run-2.json with B/run-2.json.
  std::vector<std::pair<std::string, double>> named_run_figures() const {
    std::vector<std::pair<std::string, double>> out;
    for (const auto& [run, figures] : figures_by_run) out.emplace_back(std::filesystem::path(run->path).filename().string(), combine_cycles(figures, figure));
    std::sort(out.begin(), out.end());
    return out;
  }
  std::vector<double> run_figures() const {
    std::vector<double> out;
    for (const auto& [name, figure] : named_run_figures()) out.push_back(figure);
    return out;
  }
};

struct Collected {
  std::map<SeriesKey, Side> sides;
  std::size_t rows_fallen_back = 0;
};

Collected collect(const std::vector<LoadedReport>& reports, RunFigure figure, const std::vector<std::string>& ignored_keys) {
  Collected out;
  for (const auto& observation : observations(reports)) {
    const auto& row = *observation.row;
    SeriesKey identity = row_identity(observation);
    identity.erase(std::remove_if(identity.begin(), identity.end(),
                                  [&](const auto& field) { return std::count(ignored_keys.begin(), ignored_keys.end(), field.first) > 0; }),
                   identity.end());
    Side& side = out.sides[identity];
    side.figure = figure;
    side.size = row.size;
    std::optional<double> value = headline(row);
    if (const auto timed = row_figure(row, figure)) {
      value = timed->value;
      out.rows_fallen_back += timed->fell_back_to_min ? 1 : 0;
    }
    // The reader refuses zero times; a zero rate has no ratio either. A figure whose log is not
    // finite (beyond the largest double after the arithmetic) cannot be compared either.
    if (!value || !(*value > 0) || !std::isfinite(std::log(*value))) {
      throw InputError(observation.source->path + ": a row has no positive, finite " + (row.time_us ? "time" : "headline figure") +
                       " to compare (" + row_identity(observation).back().first + " " + row.size_text + ")");
    }
    side.figures_by_run[observation.source].push_back(*value);
  }
  return out;
}

std::vector<double> logs_of(const std::vector<double>& values, bool invert) {
  std::vector<double> out;
  for (double value : values) out.push_back(invert ? -std::log(value) : std::log(value));
  return out;
}

// What a row's verdict is judged against (logs): the least estimate a paired SLOWER needs, and the
// band SAME must fit in (the unpaired rule's threshold).
struct Thresholds {
  double min_effect = 0;
  double band = 0;
  // What SLOWER must clear, for the smallest detectable change: the estimate's gate paired, the
  // band unpaired.
  double for_slower(bool paired) const { return paired ? min_effect : band; }
};

// How far the interval's half-width must shrink for a verdict other than UNKNOWN, if the estimate
// stays as measured. Unpaired: to the threshold on the estimate's side. Paired: an estimate at
// least the min effect needs the interval off 0 (SLOWER, FASTER); a smaller one needs it in the band.
double distance_to_a_verdict(const LogRatioInterval& interval, const Thresholds& thresholds) {
  const double size = std::fabs(interval.estimate);
  if (!interval.paired) return std::fabs(size - thresholds.band);
  return size >= thresholds.min_effect && size > 0 ? size : thresholds.band - size;
}

// How many more runs a side would decide the row, if the estimate and the spreads stay as measured;
// nullopt when the estimate sits on the threshold.
std::optional<std::size_t> more_runs_to_decide(const LogRatioInterval& interval, std::size_t base_runs, std::size_t new_runs,
                                               const Thresholds& thresholds, double alpha) {
  const double distance = distance_to_a_verdict(interval, thresholds);
  if (distance < 1e-9) return std::nullopt;
  for (std::size_t extra = 1; extra <= kMostRunsWorthSaying; ++extra) {
    if (half_width_with(interval, base_runs, new_runs, extra, alpha) < distance) return extra;
  }
  return std::nullopt;
}

// Runs are paired when both sides hold the same run file names (ab's A/run-K.json, B/run-K.json).
bool pairs_line_up(const Side& base, const Side& candidate) {
  const auto base_runs = base.named_run_figures(), new_runs = candidate.named_run_figures();
  if (base_runs.size() != new_runs.size()) return false;
  for (std::size_t i = 0; i < base_runs.size(); ++i) {
    if (base_runs[i].first != new_runs[i].first) return false;
  }
  return true;
}

std::vector<double> pair_log_ratios(const Side& base, const Side& candidate, bool higher_is_better) {
  const auto base_runs = base.named_run_figures(), new_runs = candidate.named_run_figures();
  std::vector<double> ratios;
  for (std::size_t i = 0; i < base_runs.size(); ++i) {
    const double ratio = std::log(new_runs[i].second / base_runs[i].second);
    ratios.push_back(higher_is_better ? -ratio : ratio);
  }
  return ratios;
}

// --recordings: a row's BASE figures as one value per recording, the mean of its runs' logs (rates
// negated, as logs_of), so that the interval and the spread are those between recordings.
std::vector<double> recording_logs(const Side& side, bool higher_is_better) {
  std::map<std::string, std::vector<double>> by_recording;
  for (const auto& [run, figures] : side.figures_by_run) {
    const double log_figure = std::log(combine_cycles(figures, side.figure));
    by_recording[recording_of(run->path)].push_back(higher_is_better ? -log_figure : log_figure);
  }
  std::vector<double> out;
  for (const auto& [name, logs] : by_recording) out.push_back(mean_of(logs));
  return out;
}

CompareLine compare_sides(const SeriesKey& key, const Side& base, const Side& candidate, const CompareOptions& options,
                          bool higher_is_better, bool paired) {
  CompareLine line;
  line.key = key;
  line.size = base.size;
  const auto base_figures = base.run_figures();
  const auto new_figures = candidate.run_figures();
  line.base_runs = base_figures.size();
  line.new_runs = new_figures.size();
  line.base_value = geometric_mean(base_figures);
  line.new_value = geometric_mean(new_figures);
  // In log space a slowdown is positive for times (new / base) and for rates (base / new) alike.
  auto base_logs = logs_of(base_figures, higher_is_better);
  const auto new_logs = logs_of(new_figures, higher_is_better);
  // A stored baseline of enough recordings is judged by its recordings, each one value: NEW, made at
  // yet another time, is held against how far the machine's level moved between them.
  const bool by_recording = options.by_recording && !paired;
  if (by_recording) {
    auto recording_means = recording_logs(base, higher_is_better);
    line.base_recordings = recording_means.size();
    if (recording_means.size() >= kFewestRecordings) {
      base_logs = std::move(recording_means);
      line.base_value = std::exp(higher_is_better ? -mean_of(base_logs) : mean_of(base_logs));
    }
  }
  line.change = std::expm1(mean_of(new_logs) - mean_of(base_logs));
  Thresholds thresholds{std::log1p(options.min_effect), std::log1p(options.min_effect)};
  line.threshold = options.min_effect;
  const std::size_t fewest = std::min(base_logs.size(), line.new_runs);  // runs, or BASE's recordings
  if (fewest < 2) {
    line.verdict = Verdict::kUnknown;
    line.why = "too few runs (" + std::to_string(line.base_runs) + "/" + std::to_string(line.new_runs) + ")";
    line.more_runs = options.min_runs - fewest;
    return line;
  }
  // Paired: the pairs' Hodges-Lehmann ratio, which a pair straddling a change of the machine's
  // state (another job took a core between A's run and B's: 2-3x off) cannot drag.
  const std::vector<double> pair_ratios = paired ? pair_log_ratios(base, candidate, higher_is_better) : std::vector<double>{};
  const std::size_t usable = paired ? pair_ratios.size() : fewest;
  const LogRatioInterval interval = paired ? paired_log_ratio_interval(pair_ratios, options.alpha)
                                           : log_ratio_interval(base_logs, new_logs, options.alpha);
  if (paired) line.change = std::expm1(interval.estimate);
  line.interval = interval;
  // A row that varies more from run to run than the minimum effect cannot show a change smaller
  // than its own noise: the run-to-run spread (about the runs' coefficient of variation) is the
  // least that counts (unpaired), and the least SAME can promise (both). By recordings, the spread
  // between recordings: how far the machine's level moved between the times BASE was recorded.
  thresholds.band = std::max(thresholds.band, interval.base_spread);
  line.detectable = std::expm1(detectable_change(interval, usable, thresholds.for_slower(paired), options.alpha));
  line.threshold = std::expm1(thresholds.band);
  // Too few pairs for the signed-rank test: no finite bound to show (null in JSON).
  if (std::isfinite(interval.low)) line.change_low = std::expm1(interval.low);
  if (std::isfinite(interval.high)) line.change_high = std::expm1(interval.high);
  if (usable < options.min_runs) {
    line.verdict = Verdict::kUnknown;
    line.why = "too few runs (" + std::to_string(line.base_runs) + "/" + std::to_string(line.new_runs) + ")";
    const auto more = more_runs_to_decide(interval, usable, usable, thresholds, options.alpha);
    line.more_runs = std::max(options.min_runs - usable, more.value_or(0));
    return line;
  }
  // Paired, the p-values are the signed-rank test's of "no change" (p < alpha exactly when the
  // interval is off 0); unpaired, Welch's of "no change beyond the threshold".
  const double tested = paired ? 0.0 : thresholds.band;
  line.verdict = paired ? decide_paired(interval, thresholds.min_effect, thresholds.band) : decide(interval, thresholds.band);
  line.p_slower = p_value_above(interval, tested);
  line.p_faster = p_value_above(mirrored(interval), tested);
  if (line.verdict == Verdict::kUnknown) {
    line.why = paired ? "interval reaches 0 and leaves the SAME band" : "interval straddles the threshold";
    line.more_runs = more_runs_to_decide(interval, paired ? usable : base_logs.size(), paired ? usable : line.new_runs, thresholds, options.alpha);
  }
  if (by_recording && line.base_recordings < kFewestRecordings && line.verdict == Verdict::kSlower) {
    // Runs made within a minute never saw how the machine's level moves over hours: their spread
    // cannot tell a slower level of the machine from slower code.
    line.verdict = Verdict::kUnknown;
    line.slower_capped = true;
    line.why = "SLOWER needs a baseline of runs from " + std::to_string(kFewestRecordings) + " recordings, this one has " +
               std::to_string(line.base_recordings);
    line.more_runs.reset();
  }
  return line;
}

// One side of the benchmark as a whole, per (benchmark, world size): each run's geometric mean of
// its figures over the shared rows; a run missing one of them (a partial report) is left out.
std::map<SeriesKey, Side> overall_sides(const std::map<SeriesKey, Side>& sides, const std::set<SeriesKey>& shared) {
  std::map<SeriesKey, std::map<const LoadedReport*, std::vector<double>>> logs_by_run;
  std::map<SeriesKey, std::size_t> rows;
  for (const auto& [key, side] : sides) {
    if (!shared.count(key)) continue;
    SeriesKey group = key;  // each concurrent group's rows as a whole of their own
    for (std::size_t i = 2; i < group.size(); ++i) {
      if (!is_group_key(group[i].first)) group[i].second = i + 1 == group.size() ? "all" : "*";
    }
    ++rows[group];
    for (const auto& [run, figures] : side.figures_by_run) logs_by_run[group][run].push_back(std::log(combine_cycles(figures, side.figure)));
  }
  std::map<SeriesKey, Side> out;
  for (const auto& [group, by_run] : logs_by_run) {
    if (rows[group] < 2) continue;  // one row: its own line says it all
    Side side;
    side.figure = sides.begin()->second.figure;
    side.size = UINT64_MAX;
    for (const auto& [run, logs] : by_run) {
      if (logs.size() == rows[group]) side.figures_by_run[run] = {std::exp(mean_of(logs))};
    }
    if (!side.figures_by_run.empty()) out[group] = side;
  }
  return out;
}

Thresholds thresholds_of(const CompareLine& line, const CompareOptions& options) {
  return {std::log1p(options.min_effect), std::log1p(line.threshold)};
}

// A row called SLOWER (FASTER) by its own interval stays so only when Holm's step-down over every
// judged row confirms it; otherwise it is UNKNOWN, and more runs would settle it.
void apply_holm(std::vector<CompareLine>& lines, const CompareOptions& options) {
  for (const Verdict direction : {Verdict::kSlower, Verdict::kFaster}) {
    std::vector<double> p_values;
    std::vector<CompareLine*> judged;
    for (auto& line : lines) {
      const auto& p = direction == Verdict::kSlower ? line.p_slower : line.p_faster;
      if (!p) continue;
      p_values.push_back(*p);
      judged.push_back(&line);
    }
    const auto rejected = holm_rejections(p_values, options.alpha);
    for (std::size_t i = 0; i < judged.size(); ++i) {
      CompareLine& line = *judged[i];
      if (line.verdict != direction || rejected[i]) continue;
      line.verdict = Verdict::kUnknown;
      line.why = std::string(line.interval.paired ? "off 0" : "beyond the threshold") + " in its own interval, not after Holm's correction over " +
                 std::to_string(judged.size()) + " rows";
      const std::size_t base_units = line.base_recordings >= kFewestRecordings ? line.base_recordings : line.base_runs;
      line.more_runs = more_runs_to_decide(line.interval, base_units, line.new_runs, thresholds_of(line, options),
                                           options.alpha / static_cast<double>(judged.size()));
    }
  }
}

// With Holm's correction a lone change must reach alpha / rows (its first step), so the smallest
// change the runs could find is judged at that level.
void detectable_after_holm(std::vector<CompareLine>& lines, const CompareOptions& options) {
  const auto judged = static_cast<std::size_t>(std::count_if(lines.begin(), lines.end(), [](const CompareLine& line) { return line.p_slower.has_value(); }));
  if (judged < 2) return;
  for (auto& line : lines) {
    if (!line.detectable) continue;
    const std::size_t usable = line.interval.paired ? line.interval.log_ratios.size() : std::min(line.base_runs, line.new_runs);
    line.detectable = std::expm1(detectable_change(line.interval, usable, thresholds_of(line, options).for_slower(line.interval.paired),
                                                   options.alpha / static_cast<double>(judged)));
  }
}

}  // namespace

std::string to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::kSame: return "SAME";
    case Verdict::kFaster: return "FASTER";
    case Verdict::kSlower: return "SLOWER";
    case Verdict::kUnknown: return "UNKNOWN";
  }
  return "?";
}

Verdict decide(const LogRatioInterval& interval, double threshold) {
  if (interval.low > threshold) return Verdict::kSlower;
  if (interval.high < -threshold) return Verdict::kFaster;
  if (interval.low > -threshold && interval.high < threshold) return Verdict::kSame;
  return Verdict::kUnknown;
}

Verdict decide_paired(const LogRatioInterval& interval, double min_effect, double band) {
  if (interval.low > 0 && interval.estimate >= min_effect) return Verdict::kSlower;
  if (interval.high < 0 && interval.estimate <= -min_effect) return Verdict::kFaster;
  if (interval.low > -band && interval.high < band) return Verdict::kSame;
  return Verdict::kUnknown;
}

bool CompareResult::any_slower() const { return count(Verdict::kSlower) > 0; }

std::size_t CompareResult::count(Verdict verdict) const {
  return static_cast<std::size_t>(std::count_if(lines.begin(), lines.end(), [&](const CompareLine& line) { return line.verdict == verdict; }));
}

std::optional<double> CompareResult::detectable() const {
  // The benchmark as a whole when there is one (steadier than any row), else the worst row.
  std::optional<double> worst;
  for (const auto& line : lines) {
    if (!line.detectable || !std::isfinite(*line.detectable)) continue;
    if (line.overall) return line.detectable;
    worst = std::max(worst.value_or(0), *line.detectable);
  }
  return worst;
}

std::optional<std::size_t> CompareResult::more_runs() const {
  std::optional<std::size_t> most;
  for (const auto& line : lines) {
    if (line.verdict == Verdict::kUnknown && line.more_runs) most = std::max(most.value_or(0), *line.more_runs);
  }
  return most;
}

std::optional<double> injected_slowdown_percent(const report::Report& report) {
  const auto& options = report.context.options;
  const auto it = options.find("inject_slowdown_percent");
  if (it == options.end() || !it->is_number()) return std::nullopt;
  const double percent = it->get<double>();
  return percent > 0 ? std::optional<double>(percent) : std::nullopt;
}

void mark_machine_mismatch(CompareResult& result, const std::string& reason) {
  result.machine_mismatch = reason;
  for (auto& line : result.lines) {
    line.verdict = Verdict::kUnknown;
    line.why = "another machine";
    line.more_runs.reset();
  }
}

namespace {

// compare_reports' phases. With the state guard and unpaired: both sides judged together, and a
// run made in another state than most runs of either side set aside, so a baseline made in the
// usual state and a NEW run in the slow one is no regression. None when nothing is set aside.
std::optional<CompareResult> compared_after_state_guard(const std::vector<LoadedReport>& base, const std::vector<LoadedReport>& candidate,
                                                        const CompareOptions& options) {
  std::vector<const LoadedReport*> runs;
  for (const auto* side : {&base, &candidate}) {
    for (const auto& loaded : *side) runs.push_back(&loaded);
  }
  const StateGuard guard = judge_machine_states(runs, true);
  if (!guard.set_aside.empty() || !guard.cycles_set_aside.empty()) {
    const std::vector<LoadedReport> kept_base = kept_by_guard(base, guard), kept_new = kept_by_guard(candidate, guard);
    CompareOptions unguarded = options;
    unguarded.state_guard = false;
    const bool side_emptied = kept_base.empty() || kept_new.empty();
    CompareResult result = side_emptied ? compare_reports(base, candidate, unguarded) : compare_reports(kept_base, kept_new, unguarded);
    if (side_emptied) {
      // Nothing is left to judge one side by: the runs say how the two states differ, not the code.
      const std::string sides = kept_base.empty() && kept_new.empty() ? "BASE and NEW were made in two machine states"
                                : std::string("every run of ") + (kept_base.empty() ? "BASE" : "NEW") +
                                      " was made in another machine state than the others";
      mark_machine_mismatch(result, sides + " (their state probe); run again");
      return result;
    }
    for (const auto& run : guard.set_aside) result.state_set_aside.push_back(run.path);
    result.notes.push_back(set_aside_note(guard, runs));
    return result;
  }
  return std::nullopt;
}

// The two sides can be compared: an unaltered baseline, one kind, a benchmark in common.
void check_comparable(const std::vector<LoadedReport>& base, const std::vector<LoadedReport>& candidate) {
  for (const auto& loaded : base) {
    if (const auto percent = injected_slowdown_percent(loaded.report)) {
      throw InputError("BASE " + loaded.path + " ran with --inject-slowdown " + formatted("%g", *percent) + "%; a baseline must be an unaltered run");
    }
  }
  if (base.front().report.kind != candidate.front().report.kind) {
    throw InputError(std::string("BASE has ") + kind_of(base).name + " rows and NEW has " + kind_of(candidate).name +
                     " rows; compare expects the same kind of report on both sides");
  }
  std::set<std::string> base_benchmarks, new_benchmarks;
  for (const auto& loaded : base) base_benchmarks.insert(loaded.report.benchmark);
  for (const auto& loaded : candidate) new_benchmarks.insert(loaded.report.benchmark);
  bool shared = false;
  for (const auto& name : base_benchmarks) shared = shared || new_benchmarks.count(name);
  if (!shared) {
    throw InputError("BASE (" + (base_benchmarks.empty() ? std::string("?") : *base_benchmarks.begin()) + ") and NEW (" +
                     (new_benchmarks.empty() ? std::string("?") : *new_benchmarks.begin()) +
                     ") have no benchmark in common; compare expects the same benchmark on both sides");
  }
}

// One line per row both sides have, then the benchmark as a whole, in the order a reader wants.
void add_compare_lines(CompareResult& result, const std::map<SeriesKey, Side>& base_sides, const std::map<SeriesKey, Side>& new_sides,
                       const CompareOptions& options, bool higher_is_better, bool paired) {
  for (const auto& [key, side] : base_sides) {
    const auto it = new_sides.find(key);
    if (it == new_sides.end()) {
      result.only_in_base.push_back(describe_key(key));
      continue;
    }
    result.lines.push_back(compare_sides(key, side, it->second, options, higher_is_better, paired));
  }
  for (const auto& [key, side] : new_sides) {
    if (!base_sides.count(key)) result.only_in_new.push_back(describe_key(key));
  }
  std::set<SeriesKey> shared_rows;
  for (const auto& [key, side] : base_sides) {
    if (new_sides.count(key)) shared_rows.insert(key);
  }
  const auto base_overall = overall_sides(base_sides, shared_rows), new_overall = overall_sides(new_sides, shared_rows);
  for (const auto& [key, side] : base_overall) {
    const auto it = new_overall.find(key);
    if (it == new_overall.end()) continue;
    result.lines.push_back(compare_sides(key, side, it->second, options, higher_is_better, paired && pairs_line_up(side, it->second)));
    result.lines.back().overall = true;
  }
  if (options.holm) {
    apply_holm(result.lines, options);
    detectable_after_holm(result.lines, options);
  }
  // Keys hold text, so order by size as a number: 8192 before 65536.
  std::stable_sort(result.lines.begin(), result.lines.end(), [&](const CompareLine& a, const CompareLine& b) {
    if (a.overall != b.overall) return b.overall;  // the benchmark as a whole after its rows
    const SeriesKey a_rest(a.key.begin(), a.key.end() - 1), b_rest(b.key.begin(), b.key.end() - 1);
    if (a_rest != b_rest) return a_rest < b_rest;
    return a.size < b.size;
  });
}

// Concurrent groups laid out differently on the two sides: the rows of a group the other side
// lacks are left out, never paired with another group, and one line says so; nullopt when both
// sides have the same layouts.
std::optional<std::string> group_layout_difference(const std::vector<LoadedReport>& base, const std::vector<LoadedReport>& candidate,
                                                   std::map<SeriesKey, Side>& base_sides, std::map<SeriesKey, Side>& new_sides) {
  const std::set<std::string> base_layouts = group_layouts(base), new_layouts = group_layouts(candidate);
  if (base_layouts == new_layouts) return std::nullopt;
  const std::size_t left_out = erase_groups_not_in(base_sides, new_sides) + erase_groups_not_in(new_sides, base_sides);
  return "group layouts differ: BASE " + joined(base_layouts, " or ") + "; NEW " + joined(new_layouts, " or ") +
         "; a group is compared only with the group of the same id and ranks (" + std::to_string(left_out) +
         " row(s) of groups only one side has left out)";
}

// One note per injected share, not one per run: a folder of ten injected runs is one fact.
void note_injected_slowdowns(CompareResult& result, const std::vector<LoadedReport>& candidate) {
  std::map<double, std::vector<std::string>> injected_runs;
  for (const auto& loaded : candidate) {
    if (const auto percent = injected_slowdown_percent(loaded.report)) injected_runs[*percent].push_back(loaded.path);
  }
  for (const auto& [percent, paths] : injected_runs) {
    result.notes.push_back("NEW " + (paths.size() == 1 ? paths.front() : std::to_string(paths.size()) + " runs (" + paths.front() + ", ...)") +
                           " ran with --inject-slowdown " + formatted("%g%% (a synthetic slowdown)", percent));
  }
}

// --recordings: what the baseline's recordings allow, in one note.
std::string recordings_note(const BaselineRecordings& baseline) {
  const auto& recordings = baseline.recordings;
  const std::string span = recordings.empty() ? std::string("none")
                           : recordings.size() == 1 ? recordings.front().started
                                                    : recordings.front().started + " .. " + recordings.back().started;
  const std::string counted = std::to_string(recordings.size()) + " recording(s) (" + span + ")";
  if (recordings.size() >= kFewestRecordings) {
    return "baseline: runs from " + counted + ", each one unit: NEW is judged against the spread between them";
  }
  std::string note = "baseline: runs from " + counted + "; runs made within minutes never saw how far this machine's level moves over "
                     "hours, so SLOWER is capped at UNKNOWN until the baseline holds runs from " + std::to_string(kFewestRecordings) +
                     " recordings made at different times (each scripts/ci-perf.sh --update-baseline adds one)";
  if (baseline.capped > 0) note += "; " + std::to_string(baseline.capped) + " row(s) capped";
  return note;
}

nlohmann::json recordings_json(const BaselineRecordings& baseline) {
  nlohmann::json recordings = nlohmann::json::array();
  for (const auto& recording : baseline.recordings) {
    recordings.push_back({{"name", recording.name}, {"started", recording.started}, {"reports", recording.reports}});
  }
  return {{"recordings", recordings}, {"needed", kFewestRecordings}, {"slower_capped", baseline.capped}};
}

}  // namespace

CompareResult compare_reports(const std::vector<LoadedReport>& base, const std::vector<LoadedReport>& candidate,
                              const CompareOptions& options) {
  if (options.state_guard && !options.paired) {
    if (std::optional<CompareResult> guarded = compared_after_state_guard(base, candidate, options)) return std::move(*guarded);
  }
  check_comparable(base, candidate);
  const bool timed = kind_of(base).time_path != nullptr;
  const bool higher_is_better = !timed;  // a rate (the headline figure) when rows carry no timings
  // Each concurrent group is its own series, paired only with the group of the same id and ranks.
  const std::vector<LoadedReport> base_rows = rows_per_group(base), new_rows = rows_per_group(candidate);
  auto base_collected = collect(base_rows, options.figure, options.ignored_keys);
  auto new_collected = collect(new_rows, options.figure, options.ignored_keys);
  auto& base_sides = base_collected.sides;
  auto& new_sides = new_collected.sides;
  const std::optional<std::string> layouts = group_layout_difference(base, candidate, base_sides, new_sides);
  // Paired only when every row's runs line up by name; a half-paired table would mix two methods.
  bool paired = options.paired;
  for (const auto& [key, side] : base_sides) {
    const auto it = new_sides.find(key);
    if (paired && it != new_sides.end()) paired = pairs_line_up(side, it->second);
  }
  CompareResult result;
  result.paired = paired;
  if (options.paired && !paired) result.notes.push_back("runs do not pair up by file name on every row: unpaired intervals");
  result.figure = !timed ? "each run's headline rate" : describe_run_figure(options.figure, base_collected.rows_fallen_back + new_collected.rows_fallen_back);
  add_compare_lines(result, base_sides, new_sides, options, higher_is_better, paired);
  result.measure = timed ? "us" : kind_of(base).figures.front().path;
  if (layouts && result.lines.empty()) throw InputError(*layouts + "; no group is in both");
  if (layouts) result.notes.push_back(*layouts);
  if (result.lines.empty()) {
    std::string fields;
    for (const char* field : kind_of(base).key_fields) fields += std::string(", ") + field;
    throw InputError("BASE and NEW have no row in common (same benchmark, world size" + fields + " and " + kind_of(base).size_column + ")");
  }
  if (options.by_recording && !paired) {
    BaselineRecordings recordings;
    recordings.recordings = recordings_of(base);
    recordings.capped = static_cast<std::size_t>(std::count_if(result.lines.begin(), result.lines.end(), [](const CompareLine& line) { return line.slower_capped; }));
    result.recordings = std::move(recordings);
  }
  note_injected_slowdowns(result, candidate);
  return result;
}

Document compare_document(const CompareResult& result, const CompareOptions& options) {
  Table table;
  table.title = "Comparison";
  // One flat table (no groups): a pull-request comment reads best as a single Markdown table. Its
  // leading columns are the rows' key: benchmark, np, the kind's key fields and its size.
  Table::Group group;
  std::size_t beyond_representable = 0;
  for (const auto& line : result.lines) {
    if (table.columns.empty()) {
      for (const auto& [name, value] : line.key) table.columns.push_back({name == "world_size" ? "np" : name});
      for (const char* name : {"base_", "new_"}) table.columns.push_back({name + result.measure, 2});
      table.columns.insert(table.columns.end(), {{"change_%", 1}, {"low_%", 1}, {"high_%", 1}, {"threshold_%", 1}, {"runs"},
                                                 {"more_runs"}, {"verdict"}});
    }
    std::vector<nlohmann::json> cells;
    for (const auto& [name, value] : line.key) cells.emplace_back(value);
    cells[1] = std::stoi(line.key[1].second);  // np as a number
    if (line.key.back().second == std::to_string(line.size)) cells.back() = line.size;
    // A change between times near the largest double can pass what a double holds: n/a, with a note.
    const auto percent = [](const std::optional<double>& value) {
      return value && std::isfinite(100 * *value) ? nlohmann::json(100 * *value) : nlohmann::json(nullptr);
    };
    if (!std::isfinite(100 * line.change)) ++beyond_representable;
    cells.insert(cells.end(), {line.base_value, line.new_value, percent(line.change), percent(line.change_low),
                               percent(line.change_high), percent(line.threshold),
                               std::to_string(line.base_runs) + "/" + std::to_string(line.new_runs),
                               line.more_runs ? nlohmann::json(*line.more_runs)
                                              : nlohmann::json(line.verdict == Verdict::kUnknown ? "?" : ""),
                               to_string(line.verdict)});
    group.rows.push_back(std::move(cells));
  }
  table.groups.push_back(std::move(group));
  Document document;
  document.tables.push_back(std::move(table));
  if (beyond_representable > 0) {
    document.notes.push_back(std::to_string(beyond_representable) +
                             " row(s): the change is beyond what a double represents (times near the largest double), shown as n/a");
  }
  const std::size_t same = result.count(Verdict::kSame), faster = result.count(Verdict::kFaster);
  const std::size_t slower = result.count(Verdict::kSlower), unknown = result.count(Verdict::kUnknown);
  std::string verdict_line;
  if (slower) {
    verdict_line = "verdict: SLOWER (regression)";
  } else if (result.machine_mismatch) {
    verdict_line = "verdict: UNKNOWN -- " + *result.machine_mismatch;
  } else if (unknown) {
    verdict_line = "verdict: UNKNOWN (not a failure) -- " + std::to_string(unknown) + " of " + std::to_string(result.lines.size()) +
                   " rows undecided; ";
    const auto more = result.more_runs();
    if (more) {
      verdict_line += "about " + std::to_string(*more) + " more runs a side would decide them";
    } else if (result.recordings && result.recordings->capped > 0) {
      const std::size_t held = result.recordings->recordings.size();
      verdict_line += "a baseline of runs from " + std::to_string(held < kFewestRecordings ? kFewestRecordings - held : 1) +
                      " more recording(s) would decide them";
    } else {
      verdict_line += "more runs a side would decide them";
    }
  } else {
    verdict_line = faster ? "verdict: no regression (some rows FASTER)" : "verdict: SAME";
  }
  verdict_line += " -- " + std::to_string(same) + " same, " + std::to_string(faster) + " faster, " + std::to_string(slower) + " slower, " +
                  std::to_string(unknown) + " unknown";
  document.notes.push_back(verdict_line);
  char rule[700];
  char decision[300];
  if (result.paired) {
    std::snprintf(decision, sizeof decision,
                  "SLOWER/FASTER: the interval off 0 and the change at least %.3g%%; SAME: the interval within "
                  "+-threshold (max(%.3g%%, the pairs' spread))",
                  100 * options.min_effect, 100 * options.min_effect);
  } else if (result.recordings && result.recordings->recordings.size() >= kFewestRecordings) {
    std::snprintf(decision, sizeof decision,
                  "BASE's recordings are its units (each the mean of its runs); a change counts when the interval is beyond max(%.3g%%, "
                  "the spread between recordings)",
                  100 * options.min_effect);
  } else {
    std::snprintf(decision, sizeof decision, "a change counts when the interval is beyond max(%.3g%%, the baseline's run-to-run spread)",
                  100 * options.min_effect);
  }
  std::snprintf(rule, sizeof rule,
                "run-level: %s; low..high: %s (%.3g%% confidence); %s; SLOWER/FASTER also %s; at least %zu runs a side; rows "
                "'* all': the benchmark as a whole (each run's geometric mean over the rows)",
                result.figure.c_str(), result.paired ? "Hodges-Lehmann pair ratio, Wilcoxon signed-rank interval (runs paired by file name)" : "Welch t interval",
                100 * (1 - 2 * options.alpha), decision, options.holm ? "pass Holm's correction over the rows" : "per row, uncorrected", options.min_runs);
  document.notes.push_back(rule);
  const auto judged = static_cast<std::size_t>(
      std::count_if(result.lines.begin(), result.lines.end(), [](const CompareLine& line) { return line.p_slower.has_value(); }));
  const bool over_rows = options.holm && judged > 1;
  if (const auto detectable = result.detectable()) {
    document.notes.push_back(formatted("smallest change these runs could find: %.3g%% (measured spread, alpha %.3g%s, 80%% power)",
                                       100 * *detectable, options.alpha, over_rows ? " over the rows (Holm)" : ""));
  } else if (result.paired && judged > 0) {
    // Say why there is no number: the signed-rank test's least p is 2^-pairs.
    document.notes.push_back(formatted("smallest change these runs could find: none yet (the signed-rank test needs %zu pairs at alpha %.3g%s)",
                                       fewest_pairs_for(over_rows ? options.alpha / static_cast<double>(judged) : options.alpha), options.alpha,
                                       over_rows ? " over the rows (Holm)" : ""));
  }
  if (result.recordings) document.notes.push_back(recordings_note(*result.recordings));
  for (const auto& note : result.notes) document.notes.push_back(note);
  for (const auto& row : result.only_in_base) document.notes.push_back("only in BASE: " + row);
  for (const auto& row : result.only_in_new) document.notes.push_back("only in NEW: " + row);
  document.extra["regression"] = result.any_slower();
  document.extra["counts"] = {{"same", same}, {"faster", faster}, {"slower", slower}, {"unknown", unknown}};
  document.extra["more_runs"] = report::json_or_null(result.more_runs());
  document.extra["detectable_change"] = report::json_or_null(result.detectable());
  document.extra["figure"] = result.figure;
  document.extra["machine_mismatch"] = report::json_or_null(result.machine_mismatch);
  document.extra["state_set_aside"] = result.state_set_aside;
  document.extra["baseline_recordings"] = result.recordings ? recordings_json(*result.recordings) : nlohmann::json(nullptr);
  return document;
}

}  // namespace collbench::summarize
