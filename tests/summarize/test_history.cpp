// collbench history: change points over runs, the rows pooled, the machine state guard.
// (tests/summarize/summarize_test_helpers.h has what the command files share.)
#include "summarize_test_helpers.h"

namespace collbench::summarize {
namespace {

TEST(History, AFlatSeriesOnAMachineThatGetsBusierIsNotARegression) {
  // Twelve runs of unchanged code; from run 6 on 60-80 % of iterations ran beside another job.
  // Each run's p10 stays flat: exit 0. The mean follows the load.
  const auto flat = compute_history(load_reports({data("history/flat_loaded")}), HistoryOptions{});
  ASSERT_EQ(flat.series.size(), 2u);
  for (const auto& series : flat.series) EXPECT_TRUE(series.changes.empty()) << describe_key(series.key);
  EXPECT_EQ(run_cli({"history", data("history/flat_loaded")}), 0);
  HistoryOptions by_mean;
  by_mean.figure = RunFigure::kMean;
  const auto mean = compute_history(load_reports({data("history/flat_loaded")}), by_mean);
  EXPECT_GT(mean.regressions(), 0u);  // what the mean figure made of the same runs
  EXPECT_NE(mean.figure.find("--figure mean"), std::string::npos);
}

TEST(History, FindsTheStepAndNothingInAFlatSeries) {
  const HistoryOptions options;
  const auto step = compute_history(load_reports({data("history/step")}), options);
  ASSERT_EQ(step.series.size(), 2u);
  for (const auto& series : step.series) {
    ASSERT_EQ(series.changes.size(), 1u) << describe_key(series.key);
    EXPECT_EQ(series.changes[0].index, 20u);
    EXPECT_NEAR(series.changes[0].change, 0.10, 0.03);
    EXPECT_TRUE(series.regressed());
  }
  EXPECT_EQ(run_cli({"history", data("history/step")}), 1);
  const auto flat = compute_history(load_reports({data("history/flat")}), options);
  for (const auto& series : flat.series) EXPECT_TRUE(series.changes.empty()) << describe_key(series.key);
  EXPECT_EQ(run_cli({"history", data("history/flat")}), 0);
  // The step is reported at the first run after it, by that run's start time.
  EXPECT_EQ(step.series[0].points[20].time, "2026-03-01T20:00:00Z");
}

TEST(History, ChangePointsOnKnownValues) {
  HistoryOptions options;
  std::vector<double> values(24, 100.0);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] += (i % 3) * 0.5;  // tiny wiggle
  EXPECT_TRUE(find_change_points(values, options, false).empty());
  for (std::size_t i = 12; i < values.size(); ++i) values[i] *= 0.8;  // 20 % faster from 12 on
  const auto changes = find_change_points(values, options, false);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].index, 12u);
  EXPECT_LT(changes[0].change, 0);
  // Below the minimum change it is not a change.
  options.min_change = 0.30;
  EXPECT_TRUE(find_change_points(values, options, false).empty());
  EXPECT_EQ(parse_utc_time("1970-01-02T00:00:00Z"), std::optional<std::int64_t>(86400));
  EXPECT_FALSE(parse_utc_time("yesterday").has_value());
}

TEST(History, OneWildRunDoesNotHideAStep) {
  // Run 3 alone is 2.7x slower; from run 20 on every run is 10 % slower. The best split by a
  // difference of means (binary segmentation's CUSUM) cuts off the wild run, where the medians do
  // not move, and so finds nothing; E-divisive's energy statistic splits at the step.
  const auto history = compute_history(load_reports({data("history/wild_run_step")}), HistoryOptions{});
  ASSERT_EQ(history.series.size(), 2u);
  for (const auto& series : history.series) {
    ASSERT_EQ(series.changes.size(), 1u) << describe_key(series.key);
    EXPECT_EQ(series.changes[0].index, 20u);
    EXPECT_NEAR(series.changes[0].change, 0.10, 0.03);
    EXPECT_TRUE(series.regressed());
  }
  // The exponent must lie strictly between 0 and 2 (at 2 the statistic only compares means).
  EXPECT_EQ(run_cli({"history", "--exponent", "2", data("history/flat")}), 2);
  EXPECT_EQ(run_cli({"history", "--exponent", "0", data("history/flat")}), 2);
  EXPECT_EQ(run_cli({"history", "--exponent", "1", data("history/flat")}), 0);
}

// Where a history's regressions start, as history's JSON names them (every regressed row series'
// latest change and the all-rows series').
std::vector<std::string> regression_reports(const HistoryResult& result) {
  return history_document(result, HistoryOptions{}).extra.at("regression_reports").get<std::vector<std::string>>();
}

bool regression_near_run(const HistoryResult& result, int from, int to) {
  for (const auto& path : regression_reports(result)) {
    for (int run = from; run <= to; ++run) {
      if (path == "synthetic/run-" + std::to_string(run) + ".json") return true;
    }
  }
  return false;
}

TEST(History, FlatSeriesWithDisturbedRunsPassAfterHolmOverTheSeries) {
  // Twenty flat histories of four series: at most one may end in a regression (issue 20's 19 of 20).
  SyntheticHistories histories(20261125, 0.1);
  std::size_t failing = 0, failing_uncorrected = 0;
  HistoryOptions per_series;
  per_series.holm = false;
  for (int history = 0; history < 20; ++history) {
    const auto runs = histories.make(1.0, 12);
    const auto result = compute_history(runs, HistoryOptions{});
    ASSERT_EQ(result.series.size(), 4u);
    EXPECT_EQ(result.series_judged, 4u);
    failing += result.regressions() > 0 ? 1 : 0;
    failing_uncorrected += compute_history(runs, per_series).regressions() > 0 ? 1 : 0;
  }
  EXPECT_LE(failing, 1u);
  EXPECT_LE(failing, failing_uncorrected);  // the correction only ever takes regressions away
}

TEST(History, AStepIsFoundWithinOneRunOfIt) {
  // +10 % from run 8 (index 7) on, five runs after it: a regression at index 6..8. Counted over
  // twenty histories with and without one run in ten disturbed.
  const auto found_near_the_step = [](double disturbed_share, std::uint64_t seed, bool holm) {
    SyntheticHistories histories(seed, disturbed_share);
    HistoryOptions options;
    options.holm = holm;
    std::size_t found = 0;
    for (int history = 0; history < 20; ++history) found += regression_near_run(compute_history(histories.make(1.10, 7), options), 6, 8) ? 1 : 0;
    return found;
  };
  EXPECT_GE(found_near_the_step(0.0, 20261126, true), 19u);
  // With one row run in ten disturbed on its own, the all-rows series, whose median over rows
  // ignores a lone disturbed row, finds them all; each row's own series alone, at alpha / 2 over
  // Holm's four, would not (the energy statistic's p of a 7 | 5 split spreads to 0.01-0.04).
  EXPECT_GE(found_near_the_step(0.1, 20261126, true), 19u);
  EXPECT_GE(found_near_the_step(0.1, 20261126, false), 19u);
}

TEST(History, RunsOfASlowMachineAreSetAsideFromTheAllRowsSeries) {
  // One run in seven with the whole machine 2.5-3x slow, as the 2-core runner's slow state made
  // 14 % of them on 2026-11-26 (results/summarize/README.md): the all-rows series sets them aside
  // and finds a 10 % step after run 7 (18 of these 20), the row series alone 7. Flat histories end
  // in exit 0. With a third of the runs slow (the same runner another day) 11 of 20 are found, the
  // rows alone 1: what is left after the set-aside is too few runs for the permutation test.
  SyntheticHistories steps(20261127, 0.0, 0.15), flats(20261128, 0.0, 0.15);
  std::size_t found = 0, found_by_rows = 0, flat_failing = 0, set_aside = 0;
  HistoryOptions rows_only;
  rows_only.pool_rows = false;
  for (int history = 0; history < 20; ++history) {
    const auto runs = steps.make(1.10, 7);
    const auto result = compute_history(runs, HistoryOptions{});
    ASSERT_TRUE(result.all_rows.has_value());
    EXPECT_EQ(result.all_rows->rows, 4u);
    EXPECT_EQ(result.all_rows->points.size() + result.all_rows->set_aside.size(), 12u);
    set_aside += result.all_rows->set_aside.size();
    found += regression_near_run(result, 6, 8) ? 1 : 0;
    found_by_rows += regression_near_run(compute_history(runs, rows_only), 6, 8) ? 1 : 0;
    flat_failing += compute_history(flats.make(1.0, 12), HistoryOptions{}).regressions() > 0 ? 1 : 0;
  }
  EXPECT_GE(found, 17u);
  EXPECT_GT(found, found_by_rows);
  EXPECT_LE(flat_failing, 1u);
  EXPECT_GT(set_aside, 20u);  // about one in seven of 240 runs
  EXPECT_LT(set_aside, 60u);
}

TEST(History, ALastingSlowdownIsNotSetAside) {
  // Twice as slow from run 8 on and to the end: a change, not a disturbed machine. Nothing is set
  // aside, and the all-rows series reports it where it began.
  SyntheticHistories histories(20261129, 0.0);
  const auto result = compute_history(histories.make(2.0, 8), HistoryOptions{});
  ASSERT_TRUE(result.all_rows.has_value());
  EXPECT_TRUE(result.all_rows->set_aside.empty());
  ASSERT_TRUE(result.all_rows->regression);
  EXPECT_EQ(result.all_rows->points[result.all_rows->slowdown->index].path, "synthetic/run-8.json");
  EXPECT_NEAR(result.all_rows->slowdown->change, 1.0, 0.1);
  // Every row and all rows regressed at run 8: the JSON names that report once.
  const auto document = history_document(result, HistoryOptions{});
  EXPECT_EQ(document.extra.at("regression_reports"), nlohmann::json::array({"synthetic/run-8.json"}));
  EXPECT_EQ(document.extra.at("all_rows").at("regression"), true);
  // Each judged run's level: about 1 before the change, about 2 from run 8 on.
  const auto& levels = document.extra.at("all_rows").at("levels");
  ASSERT_EQ(levels.size(), result.all_rows->points.size());
  for (const auto& run : levels) {
    const auto report = run.at("report").get<std::string>();
    const int number = std::stoi(report.substr(report.find("run-") + 4));
    EXPECT_NEAR(run.at("level").get<double>(), number >= 8 ? 2.0 : 1.0, 0.25) << report;
  }
  // One row alone has no all-rows series; --pool none leaves it out, and --pool takes rows or none.
  HistoryOptions none;
  none.pool_rows = false;
  EXPECT_FALSE(compute_history(histories.make(1.0, 12), none).all_rows.has_value());
  EXPECT_EQ(run_cli({"history", "--pool", "none", data("history/flat")}), 0);
  EXPECT_EQ(run_cli({"history", "--pool", "columns", data("history/flat")}), 2);
}

TEST(History, AChangeMustHoldForMinSegmentRuns) {
  // Twelve flat runs, the last two 30 % slower: two runs are not a change at --min-segment 3 (the
  // default), and are at 2; three are at 3.
  std::vector<double> values(12, 100.0);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] += (i % 3) * 0.5;
  values[10] *= 1.3;
  values[11] *= 1.3;
  HistoryOptions options;
  EXPECT_TRUE(find_change_points(values, options, false).empty());
  options.min_segment = 2;
  ASSERT_EQ(find_change_points(values, options, false).size(), 1u);
  EXPECT_EQ(find_change_points(values, options, false)[0].index, 10u);
  values[9] *= 1.3;
  const auto three = find_change_points(values, HistoryOptions{}, false);
  ASSERT_EQ(three.size(), 1u);
  EXPECT_EQ(three[0].index, 9u);
  EXPECT_EQ(run_cli({"history", "--correction", "maybe", data("history/flat")}), 2);
}

TEST(History, ASlowStateEpisodeIsSetAsideAndTheSeriesStaysQuiet) {
  // Runs 9-11 of 12 (index 8-10) partly in the doubled state (every row 1.3x: under the figure's
  // own 1.5x set-aside) and the last one back: all rows together see a slowdown that holds in the
  // latest 3 runs' median and call it a regression, unless the runs the probe puts in another state
  // are set aside.
  SyntheticHistories histories(20261128, 0.0);
  HistoryOptions unguarded;
  unguarded.state_guard = false;
  std::size_t failing = 0, failing_unguarded = 0;
  for (int history = 0; history < 20; ++history) {
    auto runs = histories.make(1.0, 12);
    with_state_episode(runs, 8, 10, 1.3);
    const auto result = compute_history(runs, HistoryOptions{});
    ASSERT_EQ(result.state.set_aside.size(), 3u);
    EXPECT_EQ(result.state.set_aside.front().path, "synthetic/run-8.json");
    EXPECT_EQ(result.state.set_aside.back().probes_ns, (std::vector<double>{517, 527}));
    EXPECT_EQ(result.state.probed, 12u);
    for (const auto& series : result.series) EXPECT_EQ(series.points.size(), 9u);
    failing += result.regressions() > 0 ? 1 : 0;
    failing_unguarded += compute_history(runs, unguarded).regressions() > 0 ? 1 : 0;
  }
  EXPECT_LE(failing, 1u);
  EXPECT_GE(failing_unguarded, 15u);  // what the guard is for
  // The runs are listed, in words and in the JSON.
  auto runs = histories.make(1.0, 12);
  with_state_episode(runs, 8, 10);
  const auto document = history_document(compute_history(runs, HistoryOptions{}), HistoryOptions{});
  EXPECT_TRUE(std::any_of(document.notes.begin(), document.notes.end(), [](const std::string& note) {
    return note.find("3 run(s) set aside, made in another machine state (a cache-line round trip between CPUs 0 and 1 of runner") != std::string::npos &&
           note.find("2026-10-01T08:00:00Z (517, 527 ns)") != std::string::npos;
  }));
  const auto& guard = document.extra.at("state_guard");
  EXPECT_EQ(guard.at("set_aside").size(), 3u);
  EXPECT_EQ(guard.at("set_aside")[0].at("report"), "synthetic/run-8.json");
  EXPECT_DOUBLE_EQ(guard.at("usual_ns").get<double>(), 159);
  EXPECT_EQ(guard.at("lasting"), false);
}

TEST(History, AStepInsideASlowStateEpisodeIsStillFound) {
  // +10 % from run 8 (index 7) on, and the doubled state over part of runs 7-9 (index 6-8, 1.3x),
  // the step's own run among them: set aside, the step is found at the first run judged after it
  // (index 9).
  SyntheticHistories histories(20261130, 0.0);
  std::size_t found = 0;
  for (int history = 0; history < 20; ++history) {
    auto runs = histories.make(1.10, 7);
    with_state_episode(runs, 6, 8, 1.3);
    const auto result = compute_history(runs, HistoryOptions{});
    EXPECT_EQ(result.state.set_aside.size(), 3u);
    found += regression_near_run(result, 9, 9) ? 1 : 0;
    for (const auto& path : regression_reports(result)) EXPECT_NE(path, "synthetic/run-11.json");
  }
  EXPECT_GE(found, 19u);
}

TEST(History, AStateThatHoldsToTheLatestRunsIsNotSetAside) {
  // The doubled state from run 10 (index 9) to the end: where the machine is now, so nothing is set
  // aside, the slowdown is reported, and a note says the machine's state changed with it.
  SyntheticHistories histories(20261131, 0.0);
  auto runs = histories.make(1.0, 12);
  with_state_episode(runs, 9, 11);
  const auto result = compute_history(runs, HistoryOptions{});
  EXPECT_TRUE(result.state_lasting);
  EXPECT_TRUE(result.state.set_aside.empty());
  EXPECT_GT(result.regressions(), 0u);
  const auto document = history_document(result, HistoryOptions{});
  EXPECT_TRUE(has_note(document, "the latest 3 runs were all made in another machine state"));
  EXPECT_EQ(document.extra.at("state_guard").at("lasting"), true);
}

TEST(History, CyclesMadeInAnotherStateAreLeftOutAndTheRunKept) {
  // Runs 9-11 of 12 (index 8-10), four cycles each, with cycles 2-4 partly in the doubled state
  // (1.3x: under all rows' own 1.5x set-aside) and the probes after them saying so; the last run is
  // back. The run's median over cycles follows the majority: unguarded, the series calls that a
  // regression. Guarded, those cycles are left out, every run keeps its first cycle, and nothing is
  // set aside whole.
  SyntheticHistories histories(20261202, 0.0);
  HistoryOptions unguarded;
  unguarded.state_guard = false;
  std::size_t failing = 0, failing_unguarded = 0;
  for (int history = 0; history < 20; ++history) {
    auto runs = histories.make(1.0, 12);
    with_cycles(runs, 4);
    with_cycle_episode(runs, 8, 10, 2, 4, 1.3);
    const auto result = compute_history(runs, HistoryOptions{});
    EXPECT_TRUE(result.state.set_aside.empty());
    ASSERT_EQ(result.state.cycles_set_aside.size(), 3u);
    EXPECT_EQ(result.state.cycles_set_aside.front().path, "synthetic/run-8.json");
    EXPECT_EQ(result.state.cycles_set_aside.front().cycles, (std::vector<int>{2, 3, 4}));
    for (const auto& series : result.series) EXPECT_EQ(series.points.size(), 12u);
    failing += result.regressions() > 0 ? 1 : 0;
    failing_unguarded += compute_history(runs, unguarded).regressions() > 0 ? 1 : 0;
  }
  EXPECT_LE(failing, 1u);
  EXPECT_GE(failing_unguarded, 15u);  // what the guard is for
  auto runs = histories.make(1.0, 12);
  with_cycles(runs, 4);
  with_cycle_episode(runs, 8, 10, 2, 4, 2.0);
  const auto document = history_document(compute_history(runs, HistoryOptions{}), HistoryOptions{});
  EXPECT_TRUE(has_note(document, "9 cycle(s) left out of 3 run(s) kept, made in another machine state (a cache-line round trip between CPUs 0 and 1 of runner"));
  EXPECT_TRUE(has_note(document, "2026-10-01T08:00:00Z (cycles 2, 3, 4)"));
  EXPECT_TRUE(has_note(document, "each cycle's p10 time (--figure p10), the median over a run's cycles (-N)"));
  const auto& guard = document.extra.at("state_guard");
  EXPECT_EQ(guard.at("set_aside").size(), 0u);
  ASSERT_EQ(guard.at("cycles_set_aside").size(), 3u);
  EXPECT_EQ(guard.at("cycles_set_aside")[2].at("report"), "synthetic/run-10.json");
  EXPECT_EQ(guard.at("cycles_set_aside")[2].at("cycles"), nlohmann::json::array({2, 3, 4}));
  // Every cycle of a run in the doubled state: that run is set aside whole, with every probe listed.
  with_cycle_episode(runs, 9, 9, 1, 1, 2.0);
  const auto whole = compute_history(runs, HistoryOptions{});
  ASSERT_EQ(whole.state.set_aside.size(), 1u);
  EXPECT_EQ(whole.state.set_aside[0].path, "synthetic/run-9.json");
  EXPECT_EQ(whole.state.set_aside[0].probes_ns, (std::vector<double>{158, 517, 517, 517, 517}));
  EXPECT_EQ(whole.state.cycles_set_aside.size(), 2u);
}

TEST(History, AStepInsideCyclesOfAnotherStateIsStillFound) {
  // +10 % from run 8 (index 7) on, and cycles 2-4 of runs 7-9 (index 6-8) in the doubled state: the
  // step's own run among them. Their first cycles still place the step within one run of it.
  SyntheticHistories histories(20261203, 0.0);
  std::size_t found = 0;
  for (int history = 0; history < 20; ++history) {
    auto runs = histories.make(1.10, 7);
    with_cycles(runs, 4);
    with_cycle_episode(runs, 6, 8, 2, 4, 2.0);
    const auto result = compute_history(runs, HistoryOptions{});
    EXPECT_EQ(result.state.cycles_set_aside.size(), 3u);
    found += regression_near_run(result, 7, 8) ? 1 : 0;
  }
  EXPECT_GE(found, 19u);
}

TEST(History, AFastStateInAFewCyclesMovesNoRunsFigure) {
  // Two of five cycles at 0.65x in a third of the runs, which no probe sees (the fast state of
  // results/summarize/history-length-2026-12-02): the median over cycles stays on the usual three, so
  // a flat series stays quiet and a 10 % step is found within one run. The low tail over cycles
  // (compare's) would take the fast cycles' figure in those runs.
  SyntheticHistories histories(20261204, 0.0);
  std::size_t flat_failing = 0, found = 0;
  for (int history = 0; history < 20; ++history) {
    for (const double step : {1.0, 1.10}) {
      auto runs = histories.make(step, 7);
      with_cycles(runs, 5);
      for (std::size_t run = history % 3; run < runs.size(); run += 3) with_cycle_episode(runs, run, run, 2, 3, 0.65, false);
      const auto result = compute_history(runs, HistoryOptions{});
      EXPECT_TRUE(result.state.cycles_set_aside.empty());
      if (step == 1.0) flat_failing += result.regressions() > 0 ? 1 : 0;
      else found += regression_near_run(result, 7, 8) ? 1 : 0;
    }
  }
  EXPECT_LE(flat_failing, 1u);
  EXPECT_GE(found, 19u);
}

TEST(History, ReportsWithoutTheProbeReadAsBefore) {
  // Reports from before schema 2.3 have no context.state_probe: nothing is set aside, with the
  // guard on or off, and their verdicts are today's.
  const auto reports = load_reports({data("history/step")});
  for (const auto& loaded : reports) EXPECT_FALSE(loaded.report.context.state_probe.has_value()) << loaded.path;
  HistoryOptions off;
  off.state_guard = false;
  const auto guarded = compute_history(reports, HistoryOptions{}), unguarded = compute_history(reports, off);
  EXPECT_EQ(guarded.state.probed, 0u);
  EXPECT_TRUE(guarded.state.set_aside.empty());
  EXPECT_FALSE(guarded.state.usual_ns.has_value());
  EXPECT_EQ(guarded.regressions(), unguarded.regressions());
  EXPECT_GT(guarded.regressions(), 0u);
  ASSERT_EQ(guarded.series.size(), unguarded.series.size());
  for (std::size_t i = 0; i < guarded.series.size(); ++i) EXPECT_EQ(guarded.series[i].changes.size(), unguarded.series[i].changes.size());
  // A history that mixes old reports with new ones judges the new ones' states only.
  auto mixed = reports;
  for (std::size_t i = 0; i < 2; ++i) {
    report::StateProbeRecord probe;
    probe.before_ns = 150;
    mixed[i].report.context.state_probe = probe;
  }
  EXPECT_EQ(compute_history(mixed, HistoryOptions{}).state.probed, 2u);
  EXPECT_EQ(run_cli({"history", "--state-guard", "off", data("history/flat")}), 0);
  EXPECT_EQ(run_cli({"history", "--state-guard", "maybe", data("history/flat")}), 2);
}

}  // namespace
}  // namespace collbench::summarize
