// collbench history: dated runs of the same benchmark in, the points where a row's figure changed
// out. One figure per run and row, ordered by the run's start time; change
// points by E-divisive (energy statistic), each change confirmed by a permutation test. A series
// whose latest change is a slowdown is a regression only when that change's p-value also passes
// Holm's correction over every series, as compare corrects over rows: one report holds many
// series, and at alpha each, four of them would cry wolf in up to 1 - 0.95^4 = 19 % of flat histories.
//
// A code change usually moves every row of a report at once, so the rows are also judged together
// as one series ("all rows"): each run's median over rows of its figure relative to the row's
// usual level. Runs in which the whole machine was disturbed (over 1.5x the usual level) are set
// aside from that series, and it gets half of alpha while the rows' Holm family gets the other
// half, so a report still cries wolf at most alpha of the time. That series is tested one-sided,
// for a slowdown that holds to the latest runs. What it buys, on the 2-core runner
// with 12 runs: results/summarize/README.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "summarize/common/document.h"
#include "summarize/common/figure.h"
#include "summarize/verdicts/machine_state.h"
#include "summarize/common/series.h"

namespace collbench::summarize {

struct HistoryOptions {
  // Each run's figure per timed row: this quantile of each cycle's iterations (-N), as compare
  // takes it, and the median over the cycles. Within a cycle, interference only adds time, so the
  // low tail shows the code; across cycles the machine's state moves both ways: this VM also has a
  // fast state, 0.6-0.7x the usual time for seconds, in a few cycles of a run, which a low tail over
  // cycles picks and a median over them does not (compare takes the low tail of both). A median
  // over cycles found a 10 % step within one run in 8 of 20 series of 12 runs, the low tail in 3,
  // with fewer flat alarms (results/summarize/history-length-2026-12-02, levels-L12-*).
  RunFigure figure = RunFigure::kP10;
  double min_change = 0.05;      // a split whose segments' medians differ by less is not a change
  double alpha = 0.05;           // each change's permutation-test level: the false-change rate per kept change
  int permutations = 999;
  // Runs on each side of a change, so a change must hold this long before it is reported. 3: a
  // segment's level is its median, and 3 is the fewest runs whose median one disturbed run cannot
  // move beyond the others (with 2, one wild run moves it halfway); one odd run is never a change.
  std::size_t min_segment = 3;
  bool holm = true;              // regressions pass Holm's correction over the series (--correction none: per series)
  // E-divisive's distance |x - y|^exponent, 0 < exponent < 2. Below 1 one wild run weighs less
  // against a step: 0.5 found a 10 % step in 45 of 50 series with 10 % wild runs, 1 in 23 of 50
  // (results/summarize/README.md), and no more changes in flat series.
  double exponent = 0.5;
  // The "all rows" series beside the per-row ones, where a report has two rows or more (--pool).
  bool pool_rows = true;
  // Runs whose reports' state probe saw another machine state than the series' usual one are set
  // aside from every series (--state-guard on|off): a slow state of the machine is not a change of
  // the code, and the probe runs none of the code, so it cannot hide one.
  bool state_guard = true;
};

struct HistoryPoint {
  std::string time;        // context.start_time
  std::int64_t epoch_s = 0;
  std::string path;        // the report
  double value = 0;        // the run's figure: time (us), or the headline rate
};

struct HistoryChange {
  std::size_t index = 0;   // the first point after the change
  double before = 0, after = 0;  // medians of the segments on either side
  double change = 0;       // after / before - 1 for times (before / after - 1 for rates): positive is slower
  double p_value = 1;
};

struct HistorySeries {
  SeriesKey key;           // row_identity
  std::uint64_t size = 0;
  std::vector<HistoryPoint> points;  // by time
  std::vector<HistoryChange> changes;  // by index
  bool latest_is_slower() const { return !changes.empty() && changes.back().change > 0; }
  // The latest change is a slowdown and passed Holm's correction over the series (compute_history).
  bool regression = false;
  bool regressed() const { return regression; }
};

// Every row of the report as one series: a run's value is its median over rows of the row's figure
// over the row's median (1 = the row's usual level; above 1 is slower, for rates too). Only runs
// that have every row take part.
struct PooledHistory {
  std::size_t rows = 0;
  std::vector<HistoryPoint> points;     // the runs judged, by time
  std::vector<HistoryPoint> set_aside;  // whole-machine disturbances: over kSetAsideFactor x the faster half's median
  // The strongest split whose later runs are slower by --min-change, still so in the latest
  // --min-segment runs; index into `points`. One-sided permutation p.
  std::optional<HistoryChange> slowdown;
  bool regression = false;              // slowdown's p below alpha / 2 (alpha with --correction none)
  // Where it cannot decide, about how many more runs would, as compare's "about N more runs": with
  // fewer than 2 x --min-segment runs judged, the runs it lacks; with a slowdown not below its
  // alpha, the runs after it that would find that slowdown (80 % power, the runs' spread).
  std::optional<std::size_t> more_runs;
  bool too_few_runs = false;            // fewer than 2 x --min-segment runs judged
  // The smallest lasting slowdown these runs could find once it holds --min-segment runs (80 %
  // power at its alpha, the runs' spread about their segments' medians); none with too few runs.
  std::optional<double> detectable;
};

// A run this much slower than the faster half of its series' runs was disturbed as a whole: the
// slow machine states of the shared runner are 2.5-3x (results/summarize/README.md), and a code
// change that big still shows in every row's own series, which sets nothing aside.
inline constexpr double kSetAsideFactor = 1.5;

struct HistoryResult {
  std::vector<HistorySeries> series;
  std::optional<PooledHistory> all_rows;  // with --pool rows (the default) and two rows or more
  std::string measure = "us";
  std::string figure;      // which run-level figure, in words
  std::size_t reports = 0;
  // Set when the runs come from different machines (fingerprint.h): every verdict is UNKNOWN.
  std::optional<std::string> machine_mismatch;
  std::size_t series_judged = 0;  // the family Holm's correction ran over
  // The runs' concurrent groups were laid out in more than one way: each group (its id and ranks)
  // is a series of its own, and this line says so; none when every run has the same groups.
  std::optional<std::string> group_layouts;
  StateGuard state;               // the runs set aside by their machine state (machine_state.h)
  std::string state_note;         // the note listing them; empty when none was
  // The latest --min-segment runs were all in the other state: it lasts, so nothing is set aside.
  bool state_lasting = false;
  std::size_t regressions() const;  // series (all rows counting as one) whose latest change is a slowdown, after Holm; 0 on a machine mismatch
};

// Change points of one series of positive values, on the log scale. Deterministic: the
// permutations come from a fixed seed. `higher_is_better`: the values are rates.
std::vector<HistoryChange> find_change_points(const std::vector<double>& values, const HistoryOptions& options, bool higher_is_better);

// Throws InputError for a report without a start time or a bad option.
HistoryResult compute_history(const std::vector<LoadedReport>& reports, const HistoryOptions& options);

Document history_document(const HistoryResult& result, const HistoryOptions& options);

// "2025-01-01T00:00:00Z" -> seconds since 1970 (UTC); nullopt when it does not parse.
std::optional<std::int64_t> parse_utc_time(const std::string& text);

}  // namespace collbench::summarize
