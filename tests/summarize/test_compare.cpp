// collbench compare: verdicts, run statistics and the comparison of two sides.
// (tests/summarize/summarize_test_helpers.h has what the command files share.)
#include "summarize_test_helpers.h"

namespace collbench::summarize {
namespace {

LogRatioInterval interval_of(double low, double high) {
  LogRatioInterval interval;
  interval.low = std::log1p(low);
  interval.high = std::log1p(high);
  interval.estimate = (interval.low + interval.high) / 2;
  return interval;
}

TEST(Verdict, DecisionRuleOnTheInterval) {
  const double threshold = std::log1p(0.05);
  EXPECT_EQ(decide(interval_of(-0.02, 0.03), threshold), Verdict::kSame);     // inside the band
  EXPECT_EQ(decide(interval_of(0.08, 0.30), threshold), Verdict::kSlower);    // wholly above it
  EXPECT_EQ(decide(interval_of(-0.30, -0.08), threshold), Verdict::kFaster);
  EXPECT_EQ(decide(interval_of(0.02, 0.09), threshold), Verdict::kUnknown);   // straddles +5 %
  EXPECT_EQ(decide(interval_of(-0.20, 0.40), threshold), Verdict::kUnknown);  // too wide to say
  EXPECT_EQ(decide(interval_of(0.01, 0.02), threshold), Verdict::kSame);      // significant but too small to count
}

TEST(Verdict, PairedDecisionTestsNoChangeAndGatesTheEstimate) {
  const double min_effect = std::log1p(0.03), band = std::log1p(0.03);
  EXPECT_EQ(decide_paired(interval_of(0.01, 0.09), min_effect, band), Verdict::kSlower);    // off 0, estimate 5 %
  EXPECT_EQ(decide_paired(interval_of(-0.09, -0.01), min_effect, band), Verdict::kFaster);
  EXPECT_EQ(decide_paired(interval_of(0.005, 0.025), min_effect, band), Verdict::kSame);   // real but 1.5 %: below the min effect
  EXPECT_EQ(decide_paired(interval_of(0.01, 0.04), min_effect, band), Verdict::kUnknown);  // real, 2.5 %, not inside +-3 %
  EXPECT_EQ(decide_paired(interval_of(-0.01, 0.11), min_effect, band), Verdict::kUnknown); // estimate 5 %, but 0 not ruled out
  EXPECT_EQ(decide_paired(interval_of(-0.02, 0.02), min_effect, band), Verdict::kSame);
  // A noisy row's band is its spread: SAME within it, while a real change beyond the min effect is still SLOWER.
  EXPECT_EQ(decide_paired(interval_of(-0.05, 0.06), min_effect, std::log1p(0.08)), Verdict::kSame);
  EXPECT_EQ(decide_paired(interval_of(0.01, 0.07), min_effect, std::log1p(0.08)), Verdict::kSlower);
}

TEST(RunStats, StudentQuantilesMatchTables) {
  EXPECT_NEAR(student_t_quantile(0.95, 2), 2.919986, 1e-5);
  EXPECT_NEAR(student_t_quantile(0.975, 4), 2.776445, 1e-5);
  EXPECT_NEAR(student_t_quantile(0.95, 30), 1.697261, 1e-5);
  EXPECT_NEAR(student_t_quantile(0.05, 10), -1.812461, 1e-5);
}

TEST(RunStats, WelchAndPairedIntervals) {
  // Base logs 0, 0.02, 0.04 (sd 0.02); new = base + 0.1: the estimate is 0.1 either way.
  const std::vector<double> base = {0, 0.02, 0.04}, candidate = {0.1, 0.12, 0.14};
  const auto welch = log_ratio_interval(base, candidate, 0.05);
  EXPECT_NEAR(welch.estimate, 0.1, 1e-12);
  EXPECT_NEAR(welch.degrees_of_freedom, 4, 1e-9);
  EXPECT_NEAR(welch.high - welch.estimate, student_t_quantile(0.95, 4) * 0.02 * std::sqrt(2.0 / 3), 1e-9);
  // Paired: the signed-rank test's interval. Three pairs cannot reach 5 % (least p 1/8): unbounded.
  const auto three = paired_log_ratio_interval({0.1, 0.1, 0.1}, 0.05);
  EXPECT_TRUE(std::isinf(three.low) && std::isinf(three.high));
  // Ten pairs: P(T+ <= 10) = 43/1024 <= 0.05 < P(T+ <= 11) = 54/1024 (the tables' critical value
  // 10), so the 11th smallest and 11th largest of the 55 Walsh averages bound it. The wild pair
  // (2.0) is in the 10 largest averages only: it moves neither bound nor the estimate (the
  // median of the Walsh averages, 0.055, the ratios' median here too).
  const auto ten = paired_log_ratio_interval({0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 2.0}, 0.05);
  EXPECT_NEAR(ten.estimate, 0.055, 1e-12);
  EXPECT_NEAR(ten.low, 0.035, 1e-12);
  EXPECT_NEAR(ten.high, 0.09, 1e-12);
  EXPECT_NEAR(p_value_above(ten, 0.0), 1.0 / 1024, 1e-12);  // all ten above 0
  EXPECT_EQ(fewest_pairs_for(0.05), 5u);
  EXPECT_EQ(fewest_pairs_for(0.01), 7u);  // 0.05 with Holm over five rows
  // Five pairs: P(T+ <= 0) = 1/32 <= 0.05 < 2/32: the smallest and largest pair bound it.
  const auto five = paired_log_ratio_interval({0.3, 0.1, 0.5, 0.2, 0.4}, 0.05);
  EXPECT_NEAR(five.low, 0.1, 1e-12);
  EXPECT_NEAR(five.high, 0.5, 1e-12);
  EXPECT_NEAR(five.estimate, 0.3, 1e-12);
  EXPECT_THROW(student_t_quantile(0.95, std::nan("")), std::invalid_argument);
  // More runs narrow the interval.
  EXPECT_LT(half_width_with(welch, 3, 3, 5, 0.05), half_width_with(welch, 3, 3, 0, 0.05));
}

TEST(RunStats, WilcoxonSignedRankOnClosedFormCases) {
  // The null distribution of T+ counts the subsets of the ranks 1..n by their sum (checked
  // against an enumeration of all 2^n sign patterns).
  EXPECT_NEAR(signed_rank_cdf(0, 5), 1.0 / 32, 1e-15);
  EXPECT_NEAR(signed_rank_cdf(1, 5), 2.0 / 32, 1e-15);
  EXPECT_NEAR(signed_rank_cdf(3, 5), 5.0 / 32, 1e-15);   // {}, {1}, {2}, {3}, {1, 2}
  EXPECT_NEAR(signed_rank_cdf(2, 7), 3.0 / 128, 1e-15);
  EXPECT_NEAR(signed_rank_cdf(10, 10), 43.0 / 1024, 1e-15);
  EXPECT_NEAR(signed_rank_cdf(11, 10), 54.0 / 1024, 1e-15);
  EXPECT_EQ(signed_rank_cdf(-1, 10), 0);
  EXPECT_EQ(signed_rank_cdf(55, 10), 1);
  // P(T+ >= observed). All of five above 0: 1/32. The smallest of ten below: T+ = 54, 2/1024.
  EXPECT_NEAR(signed_rank_upper_p({1, 2, 3, 4, 5}), 1.0 / 32, 1e-15);
  EXPECT_NEAR(signed_rank_upper_p({-0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 2.0}), 2.0 / 1024, 1e-15);
  // The largest below (a state flip against the change) costs the most: T+ = 45, 43/1024; the sign
  // test would give 11/1024 here, and 1/1024 less than the case above. Ranks weigh how far a pair is off.
  EXPECT_NEAR(signed_rank_upper_p({0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, -2.0}), 43.0 / 1024, 1e-15);
  EXPECT_NEAR(signed_rank_upper_p({0.3, -0.1, 0.2, 0.5, -0.4, 0.6, 0.7}), 10.0 / 128, 1e-15);  // T+ = 23
  // A zero is dropped (Wilcoxon's rule); ties share their mean rank and take the normal
  // approximation with the tie correction: |1, 1, 2, -3, 4, 4, 5| gives ranks 1.5 1.5 3 4 5.5 5.5 7,
  // T+ = 24, variance 7 8 15 / 24 - (6 + 6) / 48 = 34.75, P = 1 - Phi((24 - 0.5 - 14) / sqrt(34.75)).
  EXPECT_NEAR(signed_rank_upper_p({1, 1, 2, -3, 4, 4, 5, 0}), 1 - 0.5 * std::erfc(-(24 - 0.5 - 14) / std::sqrt(34.75) / std::sqrt(2.0)), 1e-12);
  EXPECT_NEAR(signed_rank_upper_p({1, 1, 2, -3, 4, 4, 5, 0}), 0.0535290, 1e-6);
  EXPECT_EQ(signed_rank_upper_p({0, 0, 0}), 1);
  // Beyond 25 pairs: the normal approximation, mean n(n+1)/4 and variance n(n+1)(2n+1)/24.
  EXPECT_NEAR(signed_rank_cdf(150, 30), 0.5 * std::erfc(-(150.5 - 232.5) / std::sqrt(30.0 * 31 * 61 / 24) / std::sqrt(2.0)), 1e-12);

  // The test and the interval agree: p < alpha exactly when the interval's low end is above the
  // threshold (no ties), on many random sets of 5 to 30 pairs around it.
  std::uint64_t state = 12345;
  const auto uniform = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) / 9007199254740992.0;
  };
  const double threshold = std::log1p(0.05);
  for (int trial = 0; trial < 400; ++trial) {
    const std::size_t pairs = 5 + trial % 26;
    std::vector<double> ratios;
    for (std::size_t i = 0; i < pairs; ++i) ratios.push_back(0.06 + 0.05 * (uniform() - 0.5) + (uniform() < 0.1 ? -0.5 : 0.0));
    const auto interval = paired_log_ratio_interval(ratios, 0.05);
    EXPECT_EQ(p_value_above(interval, threshold) <= 0.05, interval.low > threshold) << trial;
  }
}

TEST(Compare, RepeatedRunsWithRealisticNoiseAreSame) {
  // Three runs a side, each with its own level (1 % apart) and a preempted iteration. Three runs
  // cannot put a 262144 B row within the default +-3 % (UNKNOWN, not a failure); within 5 % they can.
  const auto by_default = compare_folders("runs/aa_base", "runs/aa_new");
  for (const auto& line : by_default.lines) {
    EXPECT_NE(line.verdict, Verdict::kSlower) << describe_key(line.key);
    EXPECT_NEAR(line.threshold, 0.03, 1e-12);  // the baseline's spread (~1 %) is below the minimum effect
  }
  EXPECT_EQ(run_cli({"compare", data("runs/aa_base"), data("runs/aa_new")}), 0);
  CompareOptions five_percent;
  five_percent.min_effect = 0.05;
  const auto result = compare_folders("runs/aa_base", "runs/aa_new", five_percent);
  ASSERT_EQ(result.lines.size(), 3u);  // 64 KiB, 256 KiB, and the benchmark as a whole
  EXPECT_TRUE(result.lines[2].overall);
  EXPECT_EQ(key_value(result.lines[2].key, "bytes"), "all");
  EXPECT_EQ(key_value(result.lines[2].key, "placement"), "*");
  for (const auto& line : result.lines) {
    EXPECT_EQ(line.verdict, Verdict::kSame) << describe_key(line.key);
    EXPECT_EQ(line.base_runs, 3u);
    EXPECT_NEAR(line.threshold, 0.05, 1e-12);  // the baseline's spread (~1 %) is below the minimum effect
  }
  EXPECT_EQ(result.figure, "each run's p10 time (--figure p10)");
  EXPECT_EQ(run_cli({"compare", "--min-effect", "5%", data("runs/aa_base"), data("runs/aa_new")}), 0);
}

TEST(Compare, TwentyPercentShiftIsSlower) {
  const auto result = compare_folders("runs/aa_base", "runs/slower20");
  for (const auto& line : result.lines) {
    EXPECT_EQ(line.verdict, Verdict::kSlower) << describe_key(line.key);
    EXPECT_GT(*line.change_low, 0.05);
    EXPECT_NEAR(line.change, 0.20, 0.03);
  }
  EXPECT_EQ(run_cli({"compare", data("runs/aa_base"), data("runs/slower20")}), 1);
  EXPECT_EQ(compare_folders("runs/slower20", "runs/aa_base").lines[0].verdict, Verdict::kFaster);
  EXPECT_EQ(run_cli({"compare", data("runs/slower20"), data("runs/aa_base")}), 0);
}

TEST(Compare, FewRunsAreUnknownAndSayHowManyMore) {
  // One run a side: no spread to measure; even a 30 % change is UNKNOWN (never a failure).
  for (const auto* candidate : {"compare/same.json", "compare/slower.json", "compare/faster.json"}) {
    const auto result = compare_folders("compare/base.json", candidate);
    ASSERT_EQ(result.lines.size(), 1u);
    EXPECT_EQ(result.lines[0].verdict, Verdict::kUnknown) << candidate;
    EXPECT_EQ(result.lines[0].more_runs, std::optional<std::size_t>(2)) << candidate;
    EXPECT_EQ(run_cli({"compare", data("compare/base.json"), data(candidate)}), 0) << candidate;
  }
  EXPECT_NEAR(compare_folders("compare/base.json", "compare/slower.json").lines[0].change, 0.30, 1e-9);
  // Three against two: still UNKNOWN, at least one more run.
  const auto result = compare_folders("runs/aa_base", "runs/two_runs");
  for (const auto& line : result.lines) {
    EXPECT_EQ(line.verdict, Verdict::kUnknown);
    ASSERT_TRUE(line.more_runs.has_value());
    EXPECT_GE(*line.more_runs, 1u);
  }
  const std::string note = compare_document(result, CompareOptions{}).notes.front();
  EXPECT_NE(note.find("verdict: UNKNOWN"), std::string::npos) << note;
  EXPECT_NE(note.find("more runs a side would decide"), std::string::npos) << note;
}

TEST(Compare, AnotherMachineIsUnknownWithOneLine) {
  const auto base = load_reports({data("runs/aa_base")});
  const auto other = load_reports({data("runs/other_machine")});
  const auto difference = fingerprint_difference(fingerprint_of(base, {data("runs/aa_base")}), fingerprint_of(other, {data("runs/other_machine")}));
  ASSERT_TRUE(difference.has_value());
  EXPECT_EQ(difference->find('\n'), std::string::npos);
  // The same machine, recorded on another date, is the same fingerprint.
  EXPECT_FALSE(fingerprint_difference(fingerprint_of(base, {data("runs/aa_base")}),
                                      fingerprint_of(load_reports({data("runs/aa_new")}), {data("runs/aa_new")})));
  // Even a 20 % slowdown on another machine is UNKNOWN, never SLOWER: exit 0.
  auto result = compare_reports(base, load_reports({data("runs/slower20")}), CompareOptions{});
  mark_machine_mismatch(result, *difference);
  EXPECT_FALSE(result.any_slower());
  EXPECT_EQ(result.count(Verdict::kUnknown), result.lines.size());
  EXPECT_EQ(run_cli({"compare", data("runs/other_machine"), data("runs/aa_new")}), 0);
  EXPECT_THROW(parse_fingerprint_text("cpu_model=x\nno equals sign\n", "f.txt"), InputError);
}

TEST(Compare, InjectedSlowdownIsRefusedAsBaseAndAcceptedAsNew) {
  EXPECT_EQ(run_cli({"compare", data("runs/injected"), data("runs/aa_new")}), 2);
  EXPECT_THROW(compare_folders("runs/injected", "runs/aa_new"), InputError);
  const auto result = compare_folders("runs/aa_base", "runs/injected");
  EXPECT_EQ(result.count(Verdict::kSlower), 3u);  // the injected 10 % is found, in both rows and as a whole
  ASSERT_FALSE(result.notes.empty());
  EXPECT_NE(result.notes.front().find("--inject-slowdown 10%"), std::string::npos);
}

TEST(Compare, HolmKeepsManyRowsFromFailingByChance) {
  // Ten rows, each with one-sided p = 0.03 against the threshold: each alone is "SLOWER" at alpha
  // 0.05, but not as a family of ten.
  EXPECT_EQ(holm_rejections(std::vector<double>(10, 0.03), 0.05), std::vector<bool>(10, false));
  EXPECT_EQ(holm_rejections({0.001, 0.03, 0.2}, 0.05), (std::vector<bool>{true, false, false}));
  EXPECT_EQ(holm_rejections({0.001, 0.02, 0.04}, 0.05), (std::vector<bool>{true, true, true}));
  CompareOptions per_row;
  per_row.holm = false;
  EXPECT_EQ(compare_folders("runs/aa_base", "runs/slower20", per_row).count(Verdict::kSlower), 3u);
  EXPECT_EQ(compare_folders("runs/aa_base", "runs/slower20").count(Verdict::kSlower), 3u);  // a clear shift survives
}

TEST(Compare, PairedRunsCancelSharedDrift) {
  // Paired by file name: the runs' levels are shared by both sides of a pair, so drift cancels.
  CompareOptions options;
  options.paired = true;
  const auto result = compare_folders("runs/aa_base", "runs/aa_new", options);
  EXPECT_TRUE(result.paired);
  // Different file names do not pair: the comparison falls back to unpaired intervals, and says so.
  const auto unpaired = compare_folders("compare/base.json", "compare/same.json", options);
  EXPECT_FALSE(unpaired.paired);
}

TEST(Compare, APairThatStraddlesAChangeOfMachineStateCannotDragTheVerdict) {
  // Eight pairs; in pair 4 B ran 2.7x slower than its state (another job took a core). The
  // Hodges-Lehmann ratio and the signed-rank interval do not move with one pair.
  CompareOptions options;
  options.paired = true;
  const auto slower = compare_folders("runs/state8_base", "runs/state8_slower10", options);
  ASSERT_EQ(slower.lines.size(), 3u);
  for (const auto& line : slower.lines) {
    EXPECT_EQ(line.verdict, Verdict::kSlower) << describe_key(line.key);
    EXPECT_NEAR(line.change, 0.10, 0.03);  // the pairs' Hodges-Lehmann ratio, not the 2.7x one
  }
  // A/A with the 2.7x pair: never SLOWER. With eight pairs the pair is in 8 of the 36 Walsh
  // averages and the 90 % interval leaves out 5 at each end, so its high end moves and SAME waits
  // (UNKNOWN, one more run); from ten pairs on (11 left out of 55) it moves nothing.
  const auto same8 = compare_folders("runs/state8_base", "runs/state8_aa", options);
  for (const auto& line : same8.lines) {
    EXPECT_EQ(line.verdict, Verdict::kUnknown) << describe_key(line.key);
    EXPECT_LT(*line.change_low, 0.05) << describe_key(line.key);
    EXPECT_NEAR(line.change, 0.0, 0.02) << describe_key(line.key);
  }
  const auto same = compare_folders("runs/state10_base", "runs/state10_aa", options);
  ASSERT_EQ(same.lines.size(), 3u);
  for (const auto& line : same.lines) EXPECT_EQ(line.verdict, Verdict::kSame) << describe_key(line.key);
  for (const auto& line : compare_folders("runs/state10_base", "runs/state10_slower10", options).lines) {
    EXPECT_EQ(line.verdict, Verdict::kSlower) << describe_key(line.key);
    EXPECT_NEAR(line.change, 0.10, 0.03);
  }
  // Unpaired, the 2.7x run is part of NEW's spread, and a 10 % change cannot be told from it.
  const auto unpaired = compare_folders("runs/state8_base", "runs/state8_slower10");
  for (const auto& line : unpaired.lines) EXPECT_NE(line.verdict, Verdict::kSlower) << describe_key(line.key);
  // Five pairs cannot pass Holm's correction over three rows (the signed-rank test's least p is 1/32):
  // UNKNOWN, asking for more runs, never SLOWER on too little evidence.
  const auto five = compare_folders("runs/state_base", "runs/state_slower10", options);
  for (const auto& line : five.lines) {
    EXPECT_EQ(line.verdict, Verdict::kUnknown) << describe_key(line.key);
    ASSERT_TRUE(line.more_runs.has_value());
    EXPECT_GE(*line.more_runs, 1u);
  }
}

TEST(Compare, PairsFindAFivePercentChangeAndLetAOnePercentOnePass) {
  // Ten pairs, 1 % run-to-run noise. +5 %: the pairs put it off 0 and its estimate above 3 %, so
  // SLOWER, where the whole interval beyond max(3 %, spread) (the unpaired rule) would wait.
  CompareOptions options;
  options.paired = true;
  const auto five = compare_folders("runs/pairs10_base", "runs/pairs10_slower5", options);
  ASSERT_EQ(five.lines.size(), 3u);
  for (const auto& line : five.lines) {
    EXPECT_EQ(line.verdict, Verdict::kSlower) << describe_key(line.key);
    EXPECT_NEAR(line.change, 0.05, 0.015);
    EXPECT_GT(*line.change_low, 0.0);
  }
  EXPECT_EQ(run_cli({"compare", "--paired", data("runs/pairs10_base"), data("runs/pairs10_slower5")}), 1);
  // The same runs with an 8 % minimum effect: estimates of 5.8-6.5 % do not count.
  CompareOptions eight = options;
  eight.min_effect = 0.08;
  EXPECT_EQ(compare_folders("runs/pairs10_base", "runs/pairs10_slower5", eight).count(Verdict::kSlower), 0u);
  // +1 %: maybe real, too small to count: never SLOWER, and exit 0.
  const auto one = compare_folders("runs/pairs10_base", "runs/pairs10_slower1", options);
  for (const auto& line : one.lines) {
    EXPECT_NE(line.verdict, Verdict::kSlower) << describe_key(line.key);
    EXPECT_NEAR(line.change, 0.01, 0.015);
  }
  EXPECT_EQ(run_cli({"compare", "--paired", data("runs/pairs10_base"), data("runs/pairs10_slower1")}), 0);
}

TEST(Compare, SaysTheSmallestChangeItCouldFind) {
  CompareOptions options;
  options.paired = true;
  const auto result = compare_folders("runs/state8_base", "runs/state8_aa", options);
  ASSERT_TRUE(result.detectable().has_value());
  // Above the minimum effect (a SLOWER estimate must reach it) and finite with eight pairs.
  EXPECT_GT(*result.detectable(), 0.03);
  EXPECT_LT(*result.detectable(), 0.5);
  const auto document = compare_document(result, options);
  EXPECT_TRUE(document.extra.at("detectable_change").is_number());
  EXPECT_EQ(document.extra.at("figure"), result.figure);
  // Three pairs are too few for the signed-rank test at alpha 0.05: nothing finite to promise.
  const auto three = compare_folders("runs/aa_base", "runs/aa_new", options);
  EXPECT_FALSE(three.detectable().has_value());
  const auto three_document = compare_document(three, options);
  EXPECT_TRUE(three_document.extra.at("detectable_change").is_null());
  // ... and the note says what it would take: 6 pairs at 0.05 / 3 rows (2^-6 < 0.0167 < 2^-5).
  EXPECT_NE(std::find(three_document.notes.begin(), three_document.notes.end(),
                      "smallest change these runs could find: none yet (the signed-rank test needs 6 pairs at alpha 0.05 over the rows (Holm))"),
            three_document.notes.end());
  // Eight pairs over three rows: the test is judged at 0.05 / 3, so it needs a larger change than at
  // 0.05 per row (seen with no minimum effect, where the test alone sets the figure).
  CompareOptions any_change = options;
  any_change.min_effect = 0;
  CompareOptions per_row = any_change;
  per_row.holm = false;
  EXPECT_GT(*compare_folders("runs/state8_base", "runs/state8_aa", any_change).detectable(),
            *compare_folders("runs/state8_base", "runs/state8_aa", per_row).detectable());
}

TEST(Compare, FigureChoiceAndFallbackToTheMinimum) {
  // The fixtures keep 30 samples per row: p10 by default, another figure on request, and each says which.
  EXPECT_NE(compare_folders("runs/aa_base", "runs/aa_new").figure.find("p10"), std::string::npos);
  for (const std::string name : {"min", "p25", "p50", "mean"}) {
    CompareOptions options;
    options.figure = parse_run_figure(name);
    const auto result = compare_folders("runs/aa_base", "runs/aa_new", options);
    EXPECT_NE(result.figure.find("--figure " + name), std::string::npos) << result.figure;
    EXPECT_EQ(result.figure.find("minimum"), std::string::npos) << result.figure;
  }
  EXPECT_EQ(run_cli({"compare", "--figure", "p90", data("runs/aa_base"), data("runs/aa_new")}), 2);
  EXPECT_THROW(parse_run_figure("median"), InputError);
  // Reports without samples and without p10 (written before it was kept): the minimum, and says so.
  const auto old = compare_folders("speedup/ring.json", "speedup/ring.json");
  EXPECT_NE(old.figure.find("used their minimum"), std::string::npos) << old.figure;
  // A row's figure by hand: 20 samples 1..20 us.
  report::Row row;
  row.time_us = 10.5;
  for (int i = 1; i <= 20; ++i) row.samples_us.push_back(i);
  EXPECT_NEAR(row_figure(row, RunFigure::kP10)->value, 2.9, 1e-12);  // 1 + 0.1 * 19
  EXPECT_NEAR(row_figure(row, RunFigure::kP50)->value, 10.5, 1e-12);
  EXPECT_EQ(row_figure(row, RunFigure::kMin)->value, 1);
  EXPECT_FALSE(row_figure(row, RunFigure::kP10)->fell_back_to_min);
  // Five samples are too few for p10 (needs 10): the minimum, flagged; enough for p25 (needs 4).
  row.samples_us = {5, 3, 4, 6, 7};
  EXPECT_EQ(row_figure(row, RunFigure::kP10)->value, 3);
  EXPECT_TRUE(row_figure(row, RunFigure::kP10)->fell_back_to_min);
  EXPECT_FALSE(row_figure(row, RunFigure::kP25)->fell_back_to_min);
  // Without samples: the statistic the report kept, unless too few iterations stand behind it.
  row.samples_us.clear();
  row.time_statistics = {{"min", 2.0}, {"p10", 2.5}, {"p50", 3.0}};
  row.iterations = 100;
  EXPECT_EQ(row_figure(row, RunFigure::kP10)->value, 2.5);
  EXPECT_TRUE(row_figure(row, RunFigure::kP25)->fell_back_to_min);  // no p25 in a report: from samples only
  row.iterations = 5;
  EXPECT_EQ(row_figure(row, RunFigure::kP10)->value, 2.0);
  // Several cycles of one run (-N: on the GPU's batch schedule, one batch each): the same statistic over them.
  EXPECT_NEAR(combine_cycles({10, 30, 20, 40, 50, 60, 70, 80, 90, 100, 110}, RunFigure::kP10), 20, 1e-12);
}

TEST(Compare, AnotherMachineInTheReportsIsUnknownWithoutAFingerprintFile) {
  // The same machine in context.machine: a 20 % slowdown over eight runs a side is found.
  EXPECT_EQ(run_cli({"compare", data("runs/machine_base"), data("runs/machine_same")}), 1);
  for (const std::string side : {"machine_cpu", "machine_cores", "machine_mpi"}) {
    const auto base = load_reports({data("runs/machine_base")});
    const auto other = load_reports({data("runs/" + side)});
    const auto difference = fingerprint_difference(fingerprint_of(base, {data("runs/machine_base")}), fingerprint_of(other, {data("runs/" + side)}));
    ASSERT_TRUE(difference.has_value()) << side;
    EXPECT_EQ(difference->find('\n'), std::string::npos);
    EXPECT_NE(difference->find(side == "machine_cpu" ? "machine.cpu_model" : side == "machine_cores" ? "machine.cores" : "versions.mpi"),
              std::string::npos)
        << *difference;
    EXPECT_EQ(run_cli({"compare", data("runs/machine_base"), data("runs/" + side)}), 0) << side;
    // history over both sets: one line naming the field, exit 0.
    auto both = base;
    for (auto& loaded : other) both.push_back(loaded);
    const auto history = compute_history(both, HistoryOptions{});
    ASSERT_TRUE(history.machine_mismatch.has_value()) << side;
    EXPECT_EQ(history.regressions(), 0u);
    EXPECT_EQ(run_cli({"history", data("runs/machine_base"), data("runs/" + side)}), 0) << side;
  }
  // Old reports without the block: today's rule (no fingerprint file, so judged).
  EXPECT_FALSE(machine_change_within(load_reports({data("runs/aa_base"), data("runs/aa_new")})).has_value());
}

// Copies FROM's reports into TO with `per_host` as their context.machine.per_host.
std::string with_per_host(const std::string& from, const std::string& to, const nlohmann::json& per_host) {
  const std::string dir = ::testing::TempDir() + "/" + to;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (const auto& entry : std::filesystem::directory_iterator(data(from))) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    nlohmann::json report = nlohmann::json::parse(in);
    report["context"]["machine"]["per_host"] = per_host;
    std::ofstream(dir + "/" + entry.path().filename().string()) << report.dump();
  }
  return dir;
}

TEST(Compare, AnotherMachineOnAnyHostIsAnotherMachine) {
  const auto host = [](const std::string& name, const std::string& cpu, int cores) {
    return nlohmann::json{{"host", name}, {"ranks", {0}}, {"cpu_model", cpu}, {"cores", cores}, {"threads", cores}, {"memory_bytes", 1 << 30}};
  };
  const std::string base = with_per_host("runs/machine_base", "per_host_base", {host("node1", "Xeon A", 2), host("node2", "Xeon A", 2)});
  // Rank 0's host (and so the top-level fields) unchanged; node2 is another kind of machine.
  const std::string swapped = with_per_host("runs/machine_same", "per_host_swapped", {host("node1", "Xeon A", 2), host("node2", "Xeon B", 2)});
  // More hosts of the same kind, other names and memory: the same machine.
  const std::string more = with_per_host("runs/machine_same", "per_host_more",
                                         {host("n1", "Xeon A", 2), host("n2", "Xeon A", 2), host("n3", "Xeon A", 2), host("n4", "Xeon A", 2)});
  const auto difference = fingerprint_difference(fingerprint_of(load_reports({base}), {base}), fingerprint_of(load_reports({swapped}), {swapped}));
  ASSERT_TRUE(difference.has_value());
  EXPECT_NE(difference->find("machine.per_host"), std::string::npos) << *difference;
  EXPECT_NE(difference->find("Xeon B"), std::string::npos) << *difference;
  EXPECT_FALSE(fingerprint_difference(fingerprint_of(load_reports({base}), {base}), fingerprint_of(load_reports({more}), {more})).has_value());
  EXPECT_EQ(run_cli({"compare", base, swapped}), 0);  // UNKNOWN: not judged
  EXPECT_EQ(run_cli({"compare", base, more}), 1);     // the 20 % slowdown of machine_same is found
  auto both = load_reports({base});
  for (auto& loaded : load_reports({swapped})) both.push_back(loaded);
  EXPECT_TRUE(compute_history(both, HistoryOptions{}).machine_mismatch.has_value());
}

// Copies FROM's reports into TO with `options` set in their context.options.
std::string with_options(const std::string& from, const std::string& to, const nlohmann::json& options) {
  const std::string dir = ::testing::TempDir() + "/" + to;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (const auto& entry : std::filesystem::directory_iterator(data(from))) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    nlohmann::json report = nlohmann::json::parse(in);
    report["context"]["options"].update(options);
    std::ofstream(dir + "/" + entry.path().filename().string()) << report.dump();
  }
  return dir;
}

TEST(Compare, RunsMeasuredDifferentlyAreUnknown) {
  // The same loop settings on both sides: a 20 % slowdown is found (exit 1).
  const nlohmann::json suite = {{"iterations", 40}, {"warmup_iterations", 5}, {"cycles", 1}, {"time_aggregation", "mean"}};
  const std::string base = with_options("runs/aa_base", "measured_base", suite);
  ASSERT_EQ(run_cli({"compare", base, with_options("runs/slower20", "measured_same", suite)}), 1);
  EXPECT_FALSE(measurement_difference(measurement_of(load_reports({base})), measurement_of(load_reports({base}))).has_value());
  // NEW measured otherwise in one setting: every verdict UNKNOWN, exit 0, one line naming it.
  for (const auto& [field, value] : std::vector<std::pair<std::string, nlohmann::json>>{
           {"iterations", 500}, {"warmup_iterations", 1}, {"cycles", 8}, {"time_aggregation", "max"}}) {
    nlohmann::json other = suite;
    other[field] = value;
    const std::string candidate = with_options("runs/slower20", "measured_" + field, other);
    const auto difference = measurement_difference(measurement_of(load_reports({base})), measurement_of(load_reports({candidate})));
    ASSERT_TRUE(difference.has_value()) << field;
    EXPECT_NE(difference->find("options." + field), std::string::npos) << *difference;
    EXPECT_EQ(difference->find('\n'), std::string::npos);
    EXPECT_EQ(run_cli({"compare", base, candidate}), 0) << field;
    // history over both sets: the same line, no regression.
    auto both = load_reports({base, candidate});
    const auto history = compute_history(both, HistoryOptions{});
    ASSERT_TRUE(history.machine_mismatch.has_value()) << field;
    EXPECT_NE(history.machine_mismatch->find("measured differently"), std::string::npos) << *history.machine_mismatch;
    EXPECT_EQ(run_cli({"history", base, candidate}), 0) << field;
  }
  // Reports from before time_aggregation was recorded took the per-iteration maximum: judged
  // against "max", not against "mean".
  nlohmann::json old_suite = suite;
  old_suite.erase("time_aggregation");
  const std::string old_base = with_options("runs/aa_base", "measured_old", old_suite);
  nlohmann::json with_max = suite;
  with_max["time_aggregation"] = "max";
  EXPECT_EQ(run_cli({"compare", old_base, with_options("runs/slower20", "measured_max", with_max)}), 1);
  EXPECT_EQ(run_cli({"compare", old_base, with_options("runs/slower20", "measured_mean", suite)}), 0);
}

TEST(Compare, TimesNearTheLargestDoubleGetAVerdictNotAnInternalError) {
  // Equal runs near DBL_MAX, by every figure: SAME (exit 0), never exit 1 from an overflow inside.
  for (const std::string figure : {"p10", "p50", "mean", "min"}) {
    EXPECT_EQ(run_cli({"compare", "--figure", figure, data("runs/huge_base"), data("runs/huge_new")}), 0) << figure;
    CompareOptions options;
    options.figure = parse_run_figure(figure);
    for (const auto& line : compare_folders("runs/huge_base", "runs/huge_new", options).lines) {
      EXPECT_EQ(line.verdict, Verdict::kSame) << figure;
    }
  }
  EXPECT_NEAR(median({1.75e308, 1.78e308}), 1.765e308, 1e294);
}

TEST(Compare, ExitCodes) {
  EXPECT_EQ(run_cli({"compare", data("runs/aa_base"), data("runs/slower20"), "--min-effect", "40%"}), 0);
  EXPECT_EQ(run_cli({"compare", data("compare/base.json"), data("bad/broadcast.json")}), 2);
  EXPECT_EQ(run_cli({"compare", data("compare/base.json")}), 2);
}

TEST(Compare, UnpairedRunsInAnotherMachineStateAreSetAside) {
  // Six runs a side of the same code; two NEW runs in the doubled state. Unpaired (as against a
  // stored baseline), they are set aside and listed; kept, they make NEW look slower.
  SyntheticHistories histories(20261201, 0.0);
  auto runs = histories.make(1.0, 12);
  with_state_episode(runs, 9, 10);
  const std::vector<LoadedReport> base(runs.begin(), runs.begin() + 6), candidate(runs.begin() + 6, runs.end());
  const auto guarded = compare_reports(base, candidate, CompareOptions{});
  EXPECT_FALSE(guarded.any_slower());
  EXPECT_EQ(guarded.state_set_aside, (std::vector<std::string>{"synthetic/run-9.json", "synthetic/run-10.json"}));
  for (const auto& line : guarded.lines) EXPECT_EQ(line.new_runs, 4u);
  const auto document = compare_document(guarded, CompareOptions{});
  EXPECT_TRUE(has_note(document, "2 run(s) set aside, made in another machine state"));
  EXPECT_EQ(document.extra.at("state_set_aside").size(), 2u);
  CompareOptions off;
  off.state_guard = false;
  const auto unguarded = compare_reports(base, candidate, off);
  EXPECT_TRUE(unguarded.state_set_aside.empty());
  for (const auto& line : unguarded.lines) EXPECT_EQ(line.new_runs, 6u);
  EXPECT_GT(unguarded.lines.back().change, 0.2);  // the benchmark as a whole, two runs of six at 2x
  // Every NEW run in the other state: nothing is left to judge NEW by, so every verdict is UNKNOWN.
  auto slow_runs = histories.make(1.0, 12);
  with_state_episode(slow_runs, 8, 11);
  const std::vector<LoadedReport> calm(slow_runs.begin(), slow_runs.begin() + 8), slow(slow_runs.begin() + 8, slow_runs.end());
  const auto all_slow = compare_reports(calm, slow, CompareOptions{});
  EXPECT_FALSE(all_slow.any_slower());
  ASSERT_TRUE(all_slow.machine_mismatch.has_value());
  EXPECT_NE(all_slow.machine_mismatch->find("every run of NEW was made in another machine state"), std::string::npos);
  EXPECT_TRUE(compare_reports(calm, slow, off).any_slower());
}

TEST(Compare, UnpairedCyclesInAnotherMachineStateAreLeftOut) {
  // Six runs a side, ten cycles each, judged by their median (--figure p50: over the cycles too);
  // in every NEW run, cycles 1-8 at 2x and the probes before and after them saying so, cycles 9 and
  // 10 back. Unguarded, NEW looks slower; guarded, cycles 1-9 are left out (9: the probe before it
  // saw the slow state) and every run is kept, on its last cycle.
  SyntheticHistories histories(20261205, 0.0);
  auto runs = histories.make(1.0, 12);
  with_cycles(runs, 10);
  for (std::size_t run = 6; run < 12; ++run) {
    with_cycle_episode(runs, run, run, 1, 8, 2.0);
    runs[run].report.context.state_probe->before_ns = 517;  // the state was there before the run
  }
  const std::vector<LoadedReport> base(runs.begin(), runs.begin() + 6), candidate(runs.begin() + 6, runs.end());
  CompareOptions median;
  median.figure = RunFigure::kP50;
  const auto guarded = compare_reports(base, candidate, median);
  EXPECT_FALSE(guarded.any_slower());
  EXPECT_TRUE(guarded.state_set_aside.empty());
  for (const auto& line : guarded.lines) EXPECT_EQ(line.new_runs, 6u);
  EXPECT_TRUE(has_note(compare_document(guarded, median), "54 cycle(s) left out of 6 run(s) kept, made in another machine state"));
  CompareOptions off = median;
  off.state_guard = false;
  EXPECT_TRUE(compare_reports(base, candidate, off).any_slower());
}

// Issue 48: a time near the largest double prints as a bounded number, and a change beyond what
// a double holds as n/a with a note, never a 309-digit number or "inf", in every format.
TEST(Compare, TimesNearTheLargestDoubleStayBounded) {
  // BASE at 1 ns, NEW near the largest double: the change, about 1.7e311, is beyond a double.
  const auto scaled = [](const std::string& name, const std::function<double(double)>& time_of) {
    std::ifstream in(data("compare/base.json"));
    nlohmann::json report = nlohmann::json::parse(in);
    for (auto& row : report["results"]) {
      for (auto& sample : row["samples_us"]) sample = time_of(sample.get<double>());
      for (auto& [field, value] : row["time_us"].items()) value = field == "stdev" ? 0.0 : time_of(value.get<double>());
    }
    const std::string path = ::testing::TempDir() + "/" + name;
    std::ofstream(path) << report.dump();
    return path;
  };
  const std::string base = scaled("one_ns.json", [](double) { return 1e-3; });
  const std::string huge = scaled("near_dbl_max.json", [](double) { return 1.7e308; });
  for (const std::string format : {"text", "markdown", "csv"}) {
    std::string out, err;
    EXPECT_EQ(run_cli({"compare", base, huge, "--format", format}, &err, &out), 0) << format << ": " << err;
    EXPECT_EQ(out.find("inf"), std::string::npos) << format << ": " << out;
    EXPECT_NE(out.find("1.7e+308"), std::string::npos) << format << ": " << out;
    std::size_t digits = 0, longest = 0;
    for (char c : out) longest = std::max(longest, digits = std::isdigit(static_cast<unsigned char>(c)) ? digits + 1 : 0);
    EXPECT_LT(longest, 20u) << format << ": " << out;
    if (format == "csv") continue;  // CSV leaves null cells empty and has no notes
    // The change_% cell of the one row, found by the header's column.
    std::vector<std::vector<std::string>> lines;
    std::istringstream text(out);
    for (std::string line; std::getline(text, line);) {
      if (format == "markdown") std::replace(line.begin(), line.end(), '|', ' ');
      std::istringstream words(line);
      std::vector<std::string> cells;
      for (std::string word; words >> word;) cells.push_back(word);
      if (!cells.empty() && (cells[0] == "benchmark" || cells[0] == "all_reduce")) lines.push_back(cells);
    }
    ASSERT_EQ(lines.size(), 2u) << format << ": " << out;
    const auto column = std::find(lines[0].begin(), lines[0].end(), "change_%") - lines[0].begin();
    ASSERT_LT(static_cast<std::size_t>(column), lines[1].size()) << format << ": " << out;
    EXPECT_EQ(lines[1][static_cast<std::size_t>(column)], "n/a") << format << ": " << out;
    EXPECT_NE(out.find("beyond what a double represents"), std::string::npos) << format << ": " << out;
  }
}

}  // namespace
}  // namespace collbench::summarize
