// collbench history says how many more runs would decide where it cannot, as compare says "about N
// more runs" (issue 65): too few runs to judge, and a slowdown not yet below its alpha.
#include "summarize_test_helpers.h"

namespace collbench::summarize {
namespace {

// Dated runs of the history fixture's rows at exactly these levels (no noise): run k's every row
// at levels[k] x its size / 1000 us.
std::vector<LoadedReport> runs_at(const std::vector<double>& levels) {
  const auto fixture = load_reports({data("history/flat/run-00.json")}).front();
  std::vector<LoadedReport> runs;
  for (std::size_t run = 0; run < levels.size(); ++run) {
    LoadedReport loaded = fixture;
    loaded.path = "levels/run-" + std::to_string(run) + ".json";
    loaded.report.context.start_time = "2026-10-01T" + std::string(run < 10 ? "0" : "") + std::to_string(run) + ":00:00Z";
    for (auto& row : loaded.report.rows) {
      row.samples_us.assign(20, static_cast<double>(row.size) / 1000 * levels[run]);
      row.time_statistics.clear();
    }
    runs.push_back(std::move(loaded));
  }
  return runs;
}

TEST(HistoryRunsNeeded, TooFewRunsSayHowManyMore) {
  const HistoryOptions options;  // --min-segment 3: 6 runs before anything is judged
  const auto result = compute_history(runs_at({1, 1, 1, 1}), options);
  ASSERT_TRUE(result.all_rows.has_value());
  EXPECT_TRUE(result.all_rows->too_few_runs);
  EXPECT_EQ(result.all_rows->more_runs, std::optional<std::size_t>(2));
  EXPECT_FALSE(result.all_rows->detectable.has_value());
  const auto document = history_document(result, options);
  EXPECT_TRUE(has_note(document, "too few runs to judge (4 judged, 6 needed: --min-segment on each side of a change); about 2 more runs would decide it"));
  EXPECT_EQ(document.extra.at("all_rows").at("more_runs"), 2);
}

TEST(HistoryRunsNeeded, AnUndecidedSlowdownSaysHowManyMoreRunsWouldDecideIt) {
  // Three runs, then three 8 % slower. The one-sided permutation test's least p is one over the
  // ways to place the runs after the split: 1 / C(6, 3) = 1/20 with three after, above its alpha of
  // 0.025, and 1/35 with four; five give 1/56. So two more runs at that level decide it, and do.
  const HistoryOptions options;
  const auto undecided = compute_history(runs_at({1, 1, 1, 1.08, 1.08, 1.08}), options);
  ASSERT_TRUE(undecided.all_rows.has_value());
  ASSERT_TRUE(undecided.all_rows->slowdown.has_value());
  EXPECT_FALSE(undecided.all_rows->regression);
  EXPECT_EQ(undecided.all_rows->more_runs, std::optional<std::size_t>(2));
  EXPECT_EQ(undecided.regressions(), 0u);
  const auto document = history_document(undecided, options);
  EXPECT_TRUE(has_note(document, "not below its alpha); undecided: about 2 more runs at this level would decide it"));
  EXPECT_EQ(document.extra.at("all_rows").at("more_runs"), 2);
  // Without spread the smallest slowdown it could find is --min-change itself.
  ASSERT_TRUE(undecided.all_rows->detectable.has_value());
  EXPECT_NEAR(*undecided.all_rows->detectable, 0.05, 1e-12);
  EXPECT_TRUE(has_note(document, "smallest lasting slowdown these runs could find: 5% once it holds 3 runs"));
  const auto decided = compute_history(runs_at({1, 1, 1, 1.08, 1.08, 1.08, 1.08, 1.08}), options);
  EXPECT_TRUE(decided.all_rows->regression);
  EXPECT_FALSE(decided.all_rows->more_runs.has_value());
  EXPECT_EQ(run_cli({"history", data("history/flat")}), 0);  // a decided flat history: no "undecided"
}

TEST(HistoryRunsNeeded, TheSmallestSlowdownFoundFollowsTheRunsSpread) {
  // Twelve runs alternating between two levels 6 % apart: each run 2.91 % (half of log 1.06) from
  // the median, a spread of 1.4826 x that; a slowdown holding 3 runs after 12 is found (80 % power,
  // one-sided at alpha / 2) from (z(0.975) + z(0.80)) x spread x sqrt(1/12 + 1/3) = 8.1 % on.
  const HistoryOptions options;
  std::vector<double> levels;
  for (int run = 0; run < 12; ++run) levels.push_back(run % 2 ? 1.06 : 1.0);
  const auto noisy = compute_history(runs_at(levels), options);
  ASSERT_TRUE(noisy.all_rows.has_value());
  EXPECT_FALSE(noisy.all_rows->slowdown.has_value());
  ASSERT_TRUE(noisy.all_rows->detectable.has_value());
  const double spread = 1.4826 * std::log(1.06) / 2;
  EXPECT_NEAR(*noisy.all_rows->detectable, std::expm1((normal_quantile(0.975) + normal_quantile(0.80)) * spread * std::sqrt(1.0 / 12 + 1.0 / 3)),
              1e-9);
  EXPECT_NEAR(*noisy.all_rows->detectable, 0.081, 0.001);
  EXPECT_FALSE(noisy.all_rows->more_runs.has_value());  // nothing undecided
  // The same runs flat: --min-change.
  EXPECT_NEAR(*compute_history(runs_at(std::vector<double>(12, 1.0)), options).all_rows->detectable, 0.05, 1e-12);
}

}  // namespace
}  // namespace collbench::summarize
