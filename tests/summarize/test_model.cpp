// collbench model on reports whose times follow a known cost exactly: the fit must give back the
// parameters, the form and the breakpoint, and predict must give the closed form elsewhere.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>

#include "report/report_file.h"
#include "summarize/input_error.h"
#include "summarize/model.h"
#include "run_cli.h"

namespace collbench::summarize {
namespace {

std::string data(const std::string& name) { return std::string(COLLBENCH_SUMMARIZE_DATA) + "/" + name; }

// An all_reduce report at `ranks` whose out-of-place rows take `time_of(bytes)`, 8 B to 4 MiB.
LoadedReport synthetic(int ranks, const std::function<double(double)>& time_of, const std::string& algorithm = "default") {
  LoadedReport loaded = load_reports({data("scaling/np2.json")}).front();
  loaded.path = "synthetic-np" + std::to_string(ranks) + ".json";
  loaded.report.context.world_size = ranks;
  report::ResultRow prototype = loaded.report.results.front();
  loaded.report.results.clear();
  for (std::uint64_t bytes = 8; bytes <= (4u << 20); bytes *= 4) {
    report::ResultRow row = prototype;
    row.bytes = bytes;
    row.algorithm = algorithm;
    row.bus_bandwidth_factor = 2.0 * (ranks - 1) / ranks;
    const double time = time_of(static_cast<double>(bytes));
    row.iterations = 20;
    row.time_us = {};
    row.time_us.min = row.time_us.p10 = row.time_us.p50 = row.time_us.mean = time;
    loaded.report.results.push_back(row);
  }
  return loaded;
}

// Ring all-reduce with alpha 5 us and beta 2 GB/s (2000 bytes per us).
double ring_time(int p, double bytes) { return 2.0 * (p - 1) * 5 + 2.0 * (p - 1) / p * bytes / 2000; }

TEST(Model, FitRecoversAlphaBetaAndTheRingForm) {
  const Model model = fit_model({synthetic(2, [](double m) { return ring_time(2, m); }),
                                 synthetic(4, [](double m) { return ring_time(4, m); })});
  ASSERT_EQ(model.series.size(), 1u);
  const SeriesModel& series = model.series.front();
  ASSERT_TRUE(series.across);
  EXPECT_EQ(series.across->form, "ring");
  EXPECT_TRUE(series.across->chosen_by_fit);
  EXPECT_NEAR(series.across->alpha_us.value, 5, 1e-6);
  EXPECT_NEAR(series.across->beta_gbps.value, 2, 1e-6);
  EXPECT_LT(series.across->rms_relative_error, 1e-9);
  EXPECT_EQ(series.bus_factor, "2(p-1)/p");
  // Per world size, one piece: alpha = 2(p-1) * 5, beta = 2 GB/s / share.
  ASSERT_EQ(series.per_world_size.size(), 2u);
  ASSERT_EQ(series.per_world_size[1].pieces.size(), 1u);
  EXPECT_NEAR(series.per_world_size[1].pieces[0].alpha_us.value, 30, 1e-6);
  EXPECT_NEAR(series.per_world_size[1].pieces[0].beta_gbps.value, 2 / 1.5, 1e-6);
}

TEST(Model, AnAlgorithmNamedInTheRowsIsUsedNotChosen) {
  const auto doubling = [](int p, double m) { return std::log2(p) * (3 + m / 1000); };
  const Model model = fit_model({synthetic(2, [&](double m) { return doubling(2, m); }, "ompi-tuned-3"),
                                 synthetic(4, [&](double m) { return doubling(4, m); }, "ompi-tuned-3")});
  ASSERT_TRUE(model.series.front().across);
  EXPECT_EQ(model.series.front().across->form, "recursive_doubling");
  EXPECT_FALSE(model.series.front().across->chosen_by_fit);
  EXPECT_NEAR(model.series.front().across->alpha_us.value, 3, 1e-6);
  EXPECT_NEAR(model.series.front().across->beta_gbps.value, 1, 1e-6);
}

// An eager limit at 64 KiB: small messages cost alpha 2 us at 4 GB/s, large ones 20 us at 1 GB/s.
TEST(Model, TheProtocolChangeIsFoundAsABreakpoint) {
  const auto eager = [](double m) { return m <= 65536 ? 2 + m / 4000 : 20 + m / 1000; };
  const Model model = fit_model({synthetic(2, eager)});
  const auto& pieces = model.series.front().per_world_size.front().pieces;
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_EQ(pieces[0].to_bytes, 32768u);  // sizes go 8, 32, ..., 32 KiB, 128 KiB, ...
  EXPECT_EQ(pieces[1].from_bytes, 131072u);
  EXPECT_NEAR(pieces[0].alpha_us.value, 2, 1e-6);
  EXPECT_NEAR(pieces[1].beta_gbps.value, 1, 1e-6);
  EXPECT_NE(model.series.front().notes.front().find("one world size"), std::string::npos);
}

TEST(Model, PredictGivesTheClosedFormAtAnotherWorldSize) {
  const Model model = fit_model({synthetic(2, [](double m) { return ring_time(2, m); }),
                                 synthetic(4, [](double m) { return ring_time(4, m); })});
  PredictOptions options;
  options.world_size = 16;
  options.sizes = {8, 1u << 20};
  const Document document = predict_document(model_from_json(model_json(model), "m.json"), options);
  const auto& rows = document.tables.front().groups.front().rows;
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_NEAR(rows[0][1].get<double>(), ring_time(16, 8), 1e-6);
  EXPECT_NEAR(rows[1][1].get<double>(), ring_time(16, 1 << 20), 1e-6);
  EXPECT_EQ(rows[0][5], "latency");
  EXPECT_EQ(rows[1][5], "bandwidth");
  EXPECT_EQ(rows[1][6], "ranks");  // 16 is more than twice the largest fitted world size
  // busbw = algbw * 2(p-1)/p
  EXPECT_NEAR(rows[1][4].get<double>(), (1 << 20) / ring_time(16, 1 << 20) / 1e3 * 2 * 15 / 16, 1e-9);
}

TEST(Model, ASlowLinkBetweenHostsSetsBothTerms) {
  const Model model = fit_model({synthetic(2, [](double m) { return ring_time(2, m); }),
                                 synthetic(4, [](double m) { return ring_time(4, m); })});
  PredictOptions options;
  options.world_size = 8;
  options.ranks_per_host = 4;
  options.inter_latency_us = 5000;
  options.inter_bandwidth_gbps = 1.25;  // 10 Gbit/s
  options.sizes = {1u << 20};
  const Document document = predict_document(model, options);
  const double expected = 2.0 * 7 * 5000 + 2.0 * 7 / 8 * (1 << 20) / 1250;
  EXPECT_NEAR(document.tables.front().groups.front().rows[0][1].get<double>(), expected, 1e-6);
}

TEST(Model, BadInputIsExitTwoWithOneLine) {
  const std::string dir = ::testing::TempDir() + "/model_bad";
  std::filesystem::create_directories(dir);
  // One size only.
  LoadedReport one_size = synthetic(2, [](double m) { return 1 + m; });
  one_size.report.results.resize(1);
  EXPECT_THROW(fit_model({one_size}), InputError);
  // Another kind of report.
  std::string err;
  EXPECT_EQ(run_cli({"model", "fit", std::string(COLLBENCH_SUMMARIZE_DATA) + "/../kinds"}, &err), 2);
  // No world sizes to extrapolate from.
  const std::string single = dir + "/single.json";
  report::write_json_atomically(single, model_json(fit_model({synthetic(2, [](double m) { return 1 + m / 100; })})));
  EXPECT_EQ(run_cli({"model", "predict", single, "--np", "8"}, &err), 2);
  EXPECT_NE(err.find("no world sizes to extrapolate from"), std::string::npos) << err;
  EXPECT_EQ(run_cli({"model", "predict", single, "--np", "2"}), 0);  // the fitted world size itself
  // Not a model, a missing --np, a unitless link, an unknown action.
  EXPECT_EQ(run_cli({"model", "predict", data("scaling/np2.json"), "--np", "4"}), 2);
  EXPECT_EQ(run_cli({"model", "predict", single}), 2);
  EXPECT_EQ(run_cli({"model", "predict", single, "--np", "4", "--ranks-per-host", "2", "--inter-latency", "5"}), 2);
  EXPECT_EQ(run_cli({"model", "simulate", single}), 2);
  // Reports of two machines.
  LoadedReport other = synthetic(4, [](double m) { return 1 + m / 100; });
  other.report.context.versions["mpi"] = "another MPI 9.9";
  EXPECT_THROW(fit_model({synthetic(2, [](double m) { return 1 + m / 100; }), other}), InputError);
}

}  // namespace
}  // namespace collbench::summarize
