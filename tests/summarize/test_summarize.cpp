// The summarizer's pure functions on fixture reports (tests/data/summarize, made by make_fixtures.py)
// and on synthetic samples whose answers are known by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "summarize/cli.h"
#include "summarize/compare.h"
#include "summarize/document.h"
#include "summarize/input_error.h"
#include "summarize/load.h"
#include "summarize/mann_whitney.h"
#include "summarize/plot.h"
#include "summarize/scaling.h"
#include "summarize/speedup.h"
#include "summarize/sweep.h"

namespace collbench::summarize {
namespace {

std::string data(const std::string& name) { return std::string(COLLBENCH_SUMMARIZE_DATA) + "/" + name; }

std::string key_value(const SeriesKey& key, const std::string& name) {
  for (const auto& [field, value] : key) {
    if (field == name) return value;
  }
  return "<missing>";
}

int run_cli(std::vector<std::string> args) {
  args.insert(args.begin(), "collbench");
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int code = run_command_line(static_cast<int>(argv.size()), argv.data());
  ::testing::internal::GetCapturedStdout();
  ::testing::internal::GetCapturedStderr();
  return code;
}

TEST(Scaling, GroupsRunsThatDifferOnlyInWorldSize) {
  const auto series = compute_scaling(load_reports({data("scaling")}));
  ASSERT_EQ(series.size(), 1u);
  EXPECT_EQ(key_value(series[0].key, "benchmark"), "all_reduce");
  EXPECT_EQ(key_value(series[0].key, "tags"), "");  // the sweep's np tag does not split the series
  ASSERT_EQ(series[0].points.size(), 6u);           // 2 sizes x 3 world sizes
}

TEST(Scaling, SpeedupAndEfficiencyAgainstTheSmallestWorldSize) {
  const auto series = compute_scaling(load_reports({data("scaling")}));
  const auto& points = series.at(0).points;
  // 1 MiB: 100 us at 1 rank, 80 at 2, 50 at 4.
  EXPECT_EQ(points[3].bytes, 1048576u);
  EXPECT_EQ(points[3].world_size, 1);
  EXPECT_DOUBLE_EQ(points[3].speedup, 1.0);
  EXPECT_FALSE(points[3].headline_rate.has_value());  // one rank: bus bandwidth (the headline) undefined
  EXPECT_DOUBLE_EQ(points[4].speedup, 1.25);
  EXPECT_DOUBLE_EQ(points[4].efficiency, 0.625);
  EXPECT_DOUBLE_EQ(points[5].speedup, 2.0);
  EXPECT_DOUBLE_EQ(points[5].efficiency, 0.5);
  // 1 KiB gets slower: 10 -> 40 us.
  EXPECT_DOUBLE_EQ(points[2].speedup, 0.25);
  EXPECT_DOUBLE_EQ(points[2].efficiency, 0.0625);
}

TEST(Scaling, BaselineIsTheSmallestWorldSizePresent) {
  const auto series = compute_scaling(load_reports({data("scaling/np2.json"), data("scaling/np4.json")}));
  const auto& points = series.at(0).points;
  EXPECT_EQ(points[2].world_size, 2);
  EXPECT_DOUBLE_EQ(points[3].speedup, 80.0 / 50.0);
  EXPECT_DOUBLE_EQ(points[3].efficiency, 0.8);
}

TEST(Scaling, CsvHasTheDocumentedColumns) {
  const auto document = scaling_document(compute_scaling(load_reports({data("scaling")})), std::nullopt);
  const std::string csv = render(document, Format::kCsv);
  const std::string header = csv.substr(0, csv.find('\n'));
  for (const char* column : {"benchmark", "bytes", "world_size", "time_us", "busbw_gbps", "speedup", "efficiency"}) {
    EXPECT_NE(header.find(column), std::string::npos) << column;
  }
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 7);  // header + 6 rows
}

TEST(Scaling, AtOneSizeKeepsOnlyThatSize) {
  const auto document = scaling_document(compute_scaling(load_reports({data("scaling")})), 1048576u);
  ASSERT_EQ(document.tables.at(0).groups.at(0).rows.size(), 3u);
  EXPECT_THROW(scaling_document(compute_scaling(load_reports({data("scaling")})), 12345u), InputError);
}

TEST(Speedup, RatioPerSizeAndGeometricMean) {
  const auto result = compute_speedup(load_reports({data("speedup")}), "algorithm", std::nullopt);
  ASSERT_EQ(result.values, (std::vector<std::string>{"ring", "tree"}));
  ASSERT_EQ(result.series.size(), 1u);
  const auto& series = result.series[0];
  ASSERT_EQ(series.lines.size(), 2u);
  EXPECT_DOUBLE_EQ(*series.lines[0].time_us[0] / *series.lines[0].time_us[1], 2.0);
  EXPECT_DOUBLE_EQ(*series.lines[1].time_us[0] / *series.lines[1].time_us[1], 0.25);
  EXPECT_NEAR(*series.geomean[1], std::sqrt(0.5), 1e-12);
  EXPECT_DOUBLE_EQ(*series.geomean[0], 1.0);
}

TEST(Speedup, EnvTagAndBareKeysGiveTheSameTable) {
  const auto reports = load_reports({data("speedup")});
  for (const std::string key : {"env.NCCL_ALGO", "tag.NCCL_ALGO", "NCCL_ALGO"}) {
    const auto result = compute_speedup(reports, key, std::nullopt);
    ASSERT_EQ(result.series.size(), 1u) << key << ": the algorithm co-varies with the setting and must not split series";
    EXPECT_NEAR(*result.series[0].geomean[1], std::sqrt(0.5), 1e-12) << key;
  }
}

TEST(Speedup, BaselineChoiceInvertsTheRatio) {
  const auto result = compute_speedup(load_reports({data("speedup")}), "algorithm", std::string("tree"));
  EXPECT_EQ(result.values.front(), "tree");
  EXPECT_NEAR(*result.series[0].geomean[1], std::sqrt(2.0), 1e-12);
  EXPECT_THROW(compute_speedup(load_reports({data("speedup")}), "algorithm", std::string("nvls")), InputError);
}

TEST(Speedup, NeedsTwoValues) {
  EXPECT_THROW(compute_speedup(load_reports({data("scaling/np2.json")}), "algorithm", std::nullopt), InputError);
  EXPECT_THROW(compute_speedup(load_reports({data("speedup")}), "NO_SUCH_VARIABLE", std::nullopt), InputError);
}

TEST(GeometricMean, KnownValues) {
  EXPECT_DOUBLE_EQ(geometric_mean({4.0, 1.0}), 2.0);
  EXPECT_NEAR(geometric_mean({2.0, 8.0, 4.0}), 4.0, 1e-12);
  EXPECT_DOUBLE_EQ(geometric_mean({}), 0.0);
}

TEST(MannWhitney, ExactSmallSamples) {
  // Completely separated 5 vs 5: U = 0, two-sided exact p = 2 / C(10, 5) = 2 / 252.
  const auto separated = mann_whitney_u({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  EXPECT_TRUE(separated.exact);
  EXPECT_DOUBLE_EQ(separated.u, 0);
  EXPECT_NEAR(separated.p_value, 2.0 / 252.0, 1e-12);
  // Interleaved: U = 12 of 25 -> p = 1 (the middle of the distribution).
  const auto interleaved = mann_whitney_u({1, 3, 5, 7, 9}, {2, 4, 6, 8, 10});
  EXPECT_DOUBLE_EQ(interleaved.u, 10);
  EXPECT_NEAR(interleaved.p_value, 0.6904761904761905, 1e-12);  // 2 * P(U <= 10), counted by hand-checked enumeration
  // 3 vs 3 separated: 2 / C(6, 3) = 0.1: too few values to ever be significant at 0.05.
  EXPECT_NEAR(mann_whitney_u({1, 2, 3}, {4, 5, 6}).p_value, 0.1, 1e-12);
}

TEST(MannWhitney, NormalApproximationWithTies) {
  // All values equal: no evidence of a difference.
  EXPECT_DOUBLE_EQ(mann_whitney_u(std::vector<double>(30, 1.0), std::vector<double>(30, 1.0)).p_value, 1.0);
  // 30 vs 30 separated: the normal approximation gives a tiny p.
  std::vector<double> low, high;
  for (int i = 0; i < 30; ++i) {
    low.push_back(i);
    high.push_back(100 + i);
  }
  const auto result = mann_whitney_u(low, high);
  EXPECT_FALSE(result.exact);
  EXPECT_DOUBLE_EQ(result.u, 0);
  // z = (450 - 0.5) / sqrt(30*30*61/12) = 6.6518...; p = erfc(z / sqrt 2)
  EXPECT_NEAR(result.p_value, std::erfc((450 - 0.5) / std::sqrt(30.0 * 30 * 61 / 12) / std::sqrt(2.0)), 1e-15);
  EXPECT_LT(result.p_value, 1e-9);
  // Symmetric: swapping the samples keeps p.
  EXPECT_DOUBLE_EQ(mann_whitney_u(high, low).p_value, result.p_value);
}

TEST(Verdict, DecisionRule) {
  const CompareOptions options;  // 5 %, alpha 0.05
  EXPECT_EQ(decide(0.02, 1e-6, options), Verdict::kSame);    // significant but below the minimum effect
  EXPECT_EQ(decide(0.30, 1e-6, options), Verdict::kSlower);
  EXPECT_EQ(decide(-0.30, 1e-6, options), Verdict::kFaster);
  EXPECT_EQ(decide(0.30, 0.4, options), Verdict::kNoisy);    // large but not significant
  EXPECT_EQ(decide(0.30, std::nullopt, options), Verdict::kSlower);  // no test possible: effect alone
  EXPECT_EQ(decide(0.04, std::nullopt, options), Verdict::kSame);
}

Verdict verdict_of(const std::string& base, const std::string& candidate) {
  const auto result = compare_reports(load_reports({data(base)}), load_reports({data(candidate)}), CompareOptions{});
  EXPECT_EQ(result.lines.size(), 1u);
  return result.lines.at(0).verdict;
}

TEST(Compare, VerdictsOnSyntheticSamples) {
  EXPECT_EQ(verdict_of("compare/base.json", "compare/same.json"), Verdict::kSame);
  EXPECT_EQ(verdict_of("compare/base.json", "compare/slower.json"), Verdict::kSlower);
  EXPECT_EQ(verdict_of("compare/base.json", "compare/faster.json"), Verdict::kFaster);
  EXPECT_EQ(verdict_of("compare/base.json", "compare/small.json"), Verdict::kSame);
  EXPECT_EQ(verdict_of("compare/noisy_base.json", "compare/noisy_new.json"), Verdict::kNoisy);
}

TEST(Compare, UsesSamplesAndReportsChange) {
  const auto result = compare_reports(load_reports({data("compare/base.json")}), load_reports({data("compare/slower.json")}), CompareOptions{});
  EXPECT_EQ(result.lines[0].method, "samples");
  EXPECT_EQ(result.lines[0].base_n, 20u);
  EXPECT_NEAR(result.lines[0].change, 0.30, 1e-9);
  EXPECT_TRUE(result.any_slower());
}

TEST(Compare, ExitCodes) {
  EXPECT_EQ(run_cli({"compare", data("compare/base.json"), data("compare/same.json")}), 0);
  EXPECT_EQ(run_cli({"compare", data("compare/base.json"), data("compare/slower.json")}), 1);
  EXPECT_EQ(run_cli({"compare", data("compare/base.json"), data("compare/faster.json")}), 0);
  EXPECT_EQ(run_cli({"compare", data("compare/base.json"), data("compare/slower.json"), "--min-effect", "40%"}), 0);
  EXPECT_EQ(run_cli({"compare", data("compare/base.json"), data("bad/broadcast.json")}), 2);
  EXPECT_EQ(run_cli({"compare", data("compare/base.json")}), 2);
}

TEST(Malformed, EveryBadInputIsExitTwo) {
  for (const std::string command : {"table", "scaling"}) {
    EXPECT_EQ(run_cli({command, data("bad/not_json.json")}), 2) << command;
    EXPECT_EQ(run_cli({command, data("bad/unknown_schema.json")}), 2) << command;
    EXPECT_EQ(run_cli({command, data("bad/no_rows.json")}), 2) << command;
    EXPECT_EQ(run_cli({command, data("does/not/exist.json")}), 2) << command;
    EXPECT_EQ(run_cli({command}), 2) << command;
  }
  EXPECT_EQ(run_cli({"speedup", "--by", "algorithm", data("speedup"), data("bad/broadcast.json")}), 2);  // mixed benchmarks
  EXPECT_EQ(run_cli({"speedup", data("speedup")}), 2);  // no --by
  EXPECT_EQ(run_cli({"scaling", "--format", "yaml", data("scaling")}), 2);
  EXPECT_EQ(run_cli({"scaling", "--frobnicate", "1", data("scaling")}), 2);
  EXPECT_EQ(run_cli({"frobnicate"}), 2);
  EXPECT_EQ(run_cli({"sweep", "--out", "/tmp/x", "--", "all_reduce_perf", "-J", "r.json"}), 2);
  EXPECT_EQ(run_cli({"sweep", "--np", "0", "--out", "/tmp/x", "--", "all_reduce_perf"}), 2);
}

TEST(Malformed, MessagesNameTheFile) {
  try {
    load_reports({data("bad/unknown_schema.json")});
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown_schema.json"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("3.0"), std::string::npos);
  }
}

TEST(Partial, UsableAndFlagged) {
  const auto reports = load_reports({data("scaling/np1.json"), data("partial/np2_partial.json")});
  EXPECT_TRUE(reports[1].partial());
  ASSERT_EQ(partial_notes(reports).size(), 1u);
  const auto document = scaling_document(compute_scaling(reports), std::nullopt);
  EXPECT_NE(render(document, Format::kText).find("1024"), std::string::npos);
  EXPECT_EQ(run_cli({"scaling", data("scaling/np1.json"), data("partial/np2_partial.json")}), 0);
}

TEST(Formats, EveryFormatRenders) {
  const auto document = speedup_document(compute_speedup(load_reports({data("speedup")}), "algorithm", std::nullopt));
  EXPECT_NE(render(document, Format::kMarkdown).find("| bytes | ring time_us | tree |"), std::string::npos);
  const auto json = nlohmann::json::parse(render(document, Format::kJson));
  EXPECT_EQ(json["tables"][0]["rows"].size(), 3u);  // 2 sizes + geomean
  EXPECT_DOUBLE_EQ(json["tables"][0]["rows"][0]["tree"].get<double>(), 2.0);
  EXPECT_NE(render(document, Format::kCsv).find("geomean"), std::string::npos);
}

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

// Every report kind, in the layouts older builds wrote (tests/data/kinds, made by make_fixtures.py).
std::string kinds(const std::string& name) { return data("../kinds/" + name); }

TEST(ReportKinds, EveryCommandReadsEveryKind) {
  const std::string dir = ::testing::TempDir();
  for (const std::string name : {"matmul_v1.json", "matmul_v2_slower.json", "membw_v1.json", "copy_v1.json", "envcheck_v1.json"}) {
    for (const std::string format : {"text", "markdown", "csv", "json"}) {
      EXPECT_EQ(run_cli({"table", kinds(name), "--format", format}), 0) << name << " " << format;
    }
    EXPECT_EQ(run_cli({"table", kinds(name), "--summary", "yes"}), 0) << name;
    EXPECT_EQ(run_cli({"compare", kinds(name), kinds(name)}), 0) << name;
    EXPECT_EQ(run_cli({"plot", kinds(name), "--out", dir + "/kind.svg", "--gnuplot", "/nonexistent/gnuplot"}), 0) << name;
  }
  EXPECT_EQ(run_cli({"scaling", kinds("membw_v1.json")}), 0);
  EXPECT_EQ(run_cli({"speedup", "--by", "kernel", kinds("membw_v1.json")}), 0);  // copy against triad, per array size
}

TEST(ReportKinds, OldLayoutsReadAsTheirKind) {
  const auto reports = load_reports({kinds("matmul_v1.json"), kinds("membw_v1.json"), kinds("copy_v1.json"), kinds("envcheck_v1.json")});
  EXPECT_EQ(reports[0].report.kind, report::RowKind::kGemm);
  EXPECT_EQ(reports[1].report.kind, report::RowKind::kStream);
  EXPECT_EQ(reports[2].report.kind, report::RowKind::kCopy);
  EXPECT_EQ(reports[3].report.kind, report::RowKind::kProbe);
  EXPECT_EQ(reports[0].report.rows.at(2).size_text, "100x60x300");
  EXPECT_EQ(reports[0].report.rows.at(2).size, 100u * 60u * 300u);
  EXPECT_EQ(reports[2].report.context.world_size, 1);  // copy-1.0 had no world size
  EXPECT_DOUBLE_EQ(*reports[3].report.rows.at(1).figures.at(0), 20.0);  // probe headline: GEMM GFLOP/s
}

TEST(ReportKinds, CompareGivesAVerdictPerShape) {
  // A 1.0 report against a 2.0 one of the same benchmark: 256^3 is 50 % slower, the rest the same.
  const auto result = compare_reports(load_reports({kinds("matmul_v1.json")}), load_reports({kinds("matmul_v2_slower.json")}), CompareOptions{});
  ASSERT_EQ(result.lines.size(), 3u);
  EXPECT_EQ(key_value(result.lines[0].key, "shape"), "100x60x300");
  EXPECT_EQ(result.lines[0].verdict, Verdict::kSame);
  EXPECT_EQ(key_value(result.lines[1].key, "shape"), "128x128x128");
  EXPECT_EQ(result.lines[1].verdict, Verdict::kSame);
  EXPECT_EQ(key_value(result.lines[2].key, "shape"), "256x256x256");
  EXPECT_EQ(key_value(result.lines[2].key, "dtype"), "float32");
  EXPECT_EQ(result.lines[2].verdict, Verdict::kSlower);
  EXPECT_NEAR(result.lines[2].change, 0.5, 1e-12);
  EXPECT_EQ(run_cli({"compare", kinds("matmul_v1.json"), kinds("matmul_v2_slower.json")}), 1);
  EXPECT_EQ(run_cli({"compare", kinds("matmul_v2_slower.json"), kinds("matmul_v1.json")}), 0);  // faster
}

TEST(ReportKinds, ProbesCompareTheirHeadlineRate) {
  const auto reports = load_reports({kinds("envcheck_v1.json")});
  const auto result = compare_reports(reports, reports, CompareOptions{});
  ASSERT_EQ(result.lines.size(), 2u);
  EXPECT_EQ(result.measure, "probes.gemm_gflops");
  EXPECT_EQ(result.lines[0].verdict, Verdict::kSame);
}

TEST(ReportKinds, KindsThatCannotBeCombinedAreRefused) {
  EXPECT_EQ(run_cli({"table", kinds("matmul_v1.json"), kinds("membw_v1.json")}), 2);
  EXPECT_EQ(run_cli({"compare", kinds("matmul_v1.json"), data("compare/base.json")}), 2);
  EXPECT_EQ(run_cli({"scaling", kinds("copy_v1.json"), data("scaling")}), 2);
  EXPECT_EQ(run_cli({"scaling", kinds("envcheck_v1.json")}), 2);  // probes have no timings to scale
  EXPECT_EQ(run_cli({"plot", kinds("matmul_v1.json"), "--out", ::testing::TempDir() + "/x.svg", "--metric", "busbw"}), 2);
}

TEST(ReportKinds, ZeroTimeBaselineIsBadInput) {
  EXPECT_EQ(run_cli({"compare", kinds("zero_time_base.json"), data("compare/base.json")}), 2);
  EXPECT_EQ(run_cli({"table", kinds("zero_time_base.json")}), 2);
  try {
    load_reports({kinds("zero_time_base.json")});
    FAIL() << "no exception";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("zero_time_base.json"), std::string::npos) << message;
    EXPECT_NE(message.find("results[0]"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(ReportKinds, PlotsTheHeadlineAgainstTheSizeAxis) {
  const auto reports = load_reports({kinds("matmul_v1.json")});
  const auto series = plot_series(reports, "tflops");
  ASSERT_EQ(series.size(), 1u);
  ASSERT_EQ(series[0].points.size(), 3u);
  EXPECT_EQ(series[0].points[0].first, 100u * 60u * 300u);
  const std::string script = plot_script_text(series, "tflops", "t", "d.dat", "x.svg", report::row_kind_spec(report::RowKind::kGemm));
  EXPECT_NE(script.find("TFLOP/s"), std::string::npos);
  EXPECT_EQ(script.find("%cB"), std::string::npos);  // m*n*k is not a byte count
}

TEST(Sweep, GridAndCommandsWithoutAShell) {
  SweepOptions options;
  options.world_sizes = {1, 2};
  options.settings = {{"NCCL_ALGO", {"Ring", "Tree"}}};
  options.repeat = 2;
  options.out_dir = "/tmp/out";
  options.bench = {"all_reduce_perf", "-b", "8"};
  const auto points = expand_grid(options);
  ASSERT_EQ(points.size(), 8u);
  EXPECT_EQ(points[0].name, "np1.NCCL_ALGO-Ring.r1");
  EXPECT_EQ(points[7].name, "np2.NCCL_ALGO-Tree.r2");
  const auto argv = point_command(options, points[7], "/tmp/out/p.json");
  const std::vector<std::string> tail = {"-np", "2", "all_reduce_perf", "-b", "8", "-J", "/tmp/out/p.json", "--overwrite",
                                         "--tag", "np=2", "--tag", "repeat=2", "--tag", "NCCL_ALGO=Tree"};
  ASSERT_GE(argv.size(), tail.size());
  EXPECT_EQ(std::vector<std::string>(argv.end() - tail.size(), argv.end()), tail);
  EXPECT_EQ(argv[0], "mpirun");
  options.launcher = {"srun", "--mpi=pmix"};
  EXPECT_EQ(point_command(options, points[7], "p.json")[2], "-n");
}

}  // namespace
}  // namespace collbench::summarize
