// collbench plot: the gnuplot scripts and data of every plot.
// (tests/summarize/summarize_test_helpers.h has what the command files share.)
#include "summarize_test_helpers.h"
#include "workloads/collectives/report/collective_rows.h"

namespace collbench::summarize {
namespace {

TEST(Plot, DataAndScriptWithoutGnuplot) {
  const auto reports = load_reports({data("scaling")});
  const auto series = plot_series(reports, PlotMetric::kBusBandwidth);
  EXPECT_EQ(series.size(), 2u);  // np2 and np4; one rank has no bus bandwidth
  EXPECT_EQ(plot_series(reports, PlotMetric::kTime).size(), 3u);
  const std::string dir = ::testing::TempDir();
  const auto files = write_plot(reports, PlotMetric::kTime, dir + "/scaling_time.svg", "/nonexistent/gnuplot");
  EXPECT_FALSE(files.rendered);
  EXPECT_NE(files.message.find("gnuplot not found"), std::string::npos);
  EXPECT_NE(plot_script_text(series, PlotMetric::kBusBandwidth, "t", "d.dat", "x.svg").find("logscale x"), std::string::npos);
  EXPECT_THROW(write_plot(reports, PlotMetric::kTime, dir + "/plot.gif"), InputError);
}

TEST(Plot, SizeTicksAre1024Based) {
  EXPECT_EQ(size_tick_label(8), "8");
  EXPECT_EQ(size_tick_label(1024), "1K");
  EXPECT_EQ(size_tick_label(32768), "32K");
  EXPECT_EQ(size_tick_label(1048576), "1M");
  EXPECT_EQ(size_tick_label(std::uint64_t{32} << 20), "32M");
  EXPECT_EQ(size_tick_label(std::uint64_t{1} << 30), "1G");
  const auto reports = load_reports({data("scaling")});
  const std::string script = plot_script_text(plot_series(reports, PlotMetric::kTime), PlotMetric::kTime, "t", "d.dat", "x.png");
  EXPECT_NE(script.find("set xtics ('1K' 1024"), std::string::npos) << script;
  EXPECT_NE(script.find("'1M' 1048576"), std::string::npos) << script;
  EXPECT_EQ(script.find("kB"), std::string::npos) << script;  // no 1000-based labels
  EXPECT_EQ(script.find("%cB"), std::string::npos) << script;
  // The legend sits below the plot and names only what differs between the lines.
  EXPECT_NE(script.find("set key outside below"), std::string::npos);
  EXPECT_NE(script.find("title 'np=1'"), std::string::npos) << script;
}

TEST(Plot, OneFilePerBenchmarkForAMixedFolder) {
  const std::string dir = ::testing::TempDir() + "/mixed_plot";
  std::filesystem::create_directories(dir);
  const auto reports = load_reports({data("scaling/np2.json"), data("bad/broadcast.json")});
  const auto files = write_plots(reports, "", dir + "/busbw.svg", "/nonexistent/gnuplot");
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].image_path, dir + "/busbw-all_reduce.svg");
  EXPECT_EQ(files[1].image_path, dir + "/busbw-broadcast.svg");
  EXPECT_TRUE(std::filesystem::exists(dir + "/busbw-broadcast.gp"));
  EXPECT_EQ(run_cli({"plot", data("scaling/np2.json"), data("bad/broadcast.json"), "--out", dir + "/x.svg", "--gnuplot", "/nonexistent/gnuplot"}), 0);
  // One benchmark keeps the name it was given.
  EXPECT_EQ(write_plots(load_reports({data("scaling")}), "time", dir + "/one.svg", "/nonexistent/gnuplot").at(0).image_path, dir + "/one.svg");
}

// Benchmark names are report text: "a/b" and "a_b" once both became busbw-a_b.svg, the second
// silently replacing the first.
TEST(Plot, BenchmarkNamesMapToFileNamesOneToOne) {
  const std::string dir = ::testing::TempDir() + "/plot_names";
  std::filesystem::create_directories(dir);
  auto slash = load_reports({data("scaling/np2.json")});
  auto underscore = slash;
  for (auto& loaded : slash) loaded.report.benchmark = "a/b";
  for (auto& loaded : underscore) loaded.report.benchmark = "a_b";
  std::vector<LoadedReport> both = slash;
  both.insert(both.end(), underscore.begin(), underscore.end());
  const auto files = write_plots(both, "time", dir + "/p.svg", "/nonexistent/gnuplot");
  ASSERT_EQ(files.size(), 2u);
  EXPECT_NE(files[0].image_path, files[1].image_path);
  EXPECT_NE(files[0].data_path, files[1].data_path);
  EXPECT_TRUE(std::filesystem::exists(dir + "/p-a%2Fb.dat"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/p-a_b.dat"));
}

// A control character in --out is refused before any file is written.
TEST(Plot, ControlCharacterInThePathWritesNothing) {
  const std::string dir = ::testing::TempDir() + "/plot_control";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  EXPECT_EQ(run_cli({"plot", data("scaling/np2.json"), "--out", dir + "/x\ny.svg", "--gnuplot", "/nonexistent/gnuplot"}), 2);
  EXPECT_TRUE(std::filesystem::is_empty(dir));
}

TEST(Plot, CompareAndHistoryScripts) {
  const auto result = compare_folders("runs/aa_base", "runs/slower20");
  std::vector<std::string> data_text;
  const std::string script = compare_plot_script_text(result, "all_reduce", "c.dat", "c.png", report::row_kind_spec(report::kCollectiveRows), &data_text);
  EXPECT_NE(script.find("'SLOWER (2)'"), std::string::npos) << script;
  EXPECT_NE(script.find("yerrorbars"), std::string::npos);
  EXPECT_NE(script.find("'64K' 65536"), std::string::npos) << script;
  ASSERT_EQ(data_text.size(), 1u);
  const auto history = compute_history(load_reports({data("history/step")}), HistoryOptions{});
  const std::string history_script = history_plot_script_text(history, "all_reduce", "h.dat", "h.png");
  EXPECT_NE(history_script.find("set arrow 1 from " + std::to_string(*parse_utc_time("2026-03-01T20:00:00Z"))), std::string::npos) << history_script;
  EXPECT_EQ(history_script.find("set arrow 2 "), std::string::npos);  // both series changed at the same time: one mark
  // The all-rows series history judges is drawn too, with the runs it set aside (none here).
  std::vector<std::string> history_data;
  const std::string with_pooled = history_plot_script_text(history, "all_reduce", "h.dat", "h.png", &history_data);
  ASSERT_TRUE(history.all_rows.has_value());
  EXPECT_NE(with_pooled.find("index 2 using 1:2 with linespoints lw 3"), std::string::npos) << with_pooled;
  EXPECT_NE(with_pooled.find("'all 2 rows (median over rows)'"), std::string::npos) << with_pooled;
  EXPECT_EQ(with_pooled.find("index 3 "), std::string::npos) << with_pooled;  // no run set aside: no block, no line
  ASSERT_EQ(history_data.size(), 1u);
  const std::string& blocks = history_data.front();
  const std::size_t pooled_block = blocks.find("# 'all 2 rows (median over rows)'");
  ASSERT_NE(pooled_block, std::string::npos) << blocks;
  // Its first level is 0 %, and the step fixture's later runs are slower by what history reports.
  EXPECT_EQ(blocks.find("# 'set aside'"), std::string::npos) << blocks;
  std::istringstream pooled_lines(blocks.substr(pooled_block));
  std::string header, line;
  std::getline(pooled_lines, header);
  std::vector<double> percents;
  while (std::getline(pooled_lines, line)) {
    if (line.empty()) continue;
    percents.push_back(std::stod(line.substr(line.find(' ') + 1)));
  }
  ASSERT_EQ(percents.size(), history.all_rows->points.size());
  ASSERT_TRUE(history.all_rows->slowdown.has_value());
  EXPECT_NEAR(percents.front(), 0, 5);
  EXPECT_NEAR(percents.back(), 100 * history.all_rows->slowdown->change, 5);
  // A run set aside gets its own block and crosses, at its height over the first level.
  auto with_set_aside = history;
  HistoryPoint slow = with_set_aside.all_rows->points.front();
  slow.value *= 3;
  with_set_aside.all_rows->set_aside.push_back(slow);
  history_data.clear();
  const std::string crossed = history_plot_script_text(with_set_aside, "all_reduce", "h.dat", "h.png", &history_data);
  EXPECT_NE(crossed.find("index 3 using 1:2 with points pt 2"), std::string::npos) << crossed;
  const std::size_t set_aside_block = history_data.front().find("# 'set aside'\n");
  ASSERT_NE(set_aside_block, std::string::npos) << history_data.front();
  const std::string set_aside_line = history_data.front().substr(set_aside_block + std::string("# 'set aside'\n").size());
  EXPECT_EQ(std::stoll(set_aside_line), slow.epoch_s);
  EXPECT_NEAR(std::stod(set_aside_line.substr(set_aside_line.find(' ') + 1)), 100 * (3 * (1 + percents.front() / 100) - 1), 1);
}

}  // namespace
}  // namespace collbench::summarize
