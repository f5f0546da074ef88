// collbench model on reports whose times follow a known cost exactly: the fit must give back the
// parameters, the form and the breakpoint, and predict must give the closed form elsewhere.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>

#include "report/report_file.h"
#include "report/report_json.h"
#include "summarize/common/input_error.h"
#include "summarize/models/model.h"
#include "summarize/models/model_trace.h"
#include "workloads/replay/report/trace_readers.h"
#include "workloads/replay/report/trace_scale.h"
#include "run_cli.h"
#include "workloads/collectives/collective.h"
#include "test_data.h"

namespace collbench::summarize {
namespace {

// An all_reduce report at `ranks` whose out-of-place rows take `time_of(bytes)`, 8 B to 4 MiB.
LoadedReport synthetic(int ranks, const std::function<double(double)>& time_of, const std::string& algorithm = "default") {
  LoadedReport loaded = load_reports({data("scaling/np2.json")}).front();
  loaded.path = "synthetic-np" + std::to_string(ranks) + ".json";
  loaded.report.context.world_size = ranks;
  const report::Row prototype = loaded.report.rows.front();
  loaded.report.rows.clear();
  for (std::uint64_t bytes = 8; bytes <= (4u << 20); bytes *= 4) {
    const double time = time_of(static_cast<double>(bytes));
    loaded.report.rows.push_back(changed(prototype, [&](nlohmann::json& row) {
      row["bytes"] = bytes;
      row["algorithm"] = algorithm;
      row["bus_bandwidth_factor"] = 2.0 * (ranks - 1) / ranks;
      row["iterations"] = 20;
      row["time_us"] = {{"min", time}, {"p10", time}, {"p50", time}, {"mean", time}};
    }));
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

// Reports from before p10 was kept: each row is fit on its minimum, where they once read p10 as.
TEST(Model, RowsWithoutP10AreFitOnTheirMinimum) {
  const auto without_p10 = [](LoadedReport loaded) {
    for (auto& row : loaded.report.rows) row = changed(row, [](nlohmann::json& fields) { fields["time_us"].erase("p10"); });
    return loaded;
  };
  const Model model = fit_model({without_p10(synthetic(2, [](double m) { return ring_time(2, m); })),
                                 without_p10(synthetic(4, [](double m) { return ring_time(4, m); }))});
  ASSERT_EQ(model.series.size(), 1u);
  ASSERT_TRUE(model.series.front().across);
  EXPECT_NEAR(model.series.front().across->alpha_us.value, 5, 1e-6);
  EXPECT_NEAR(model.series.front().across->beta_gbps.value, 2, 1e-6);
}

// Each collective's bus factor in the model is the one its descriptor names: at 2 ranks, where
// 2(p-1)/p and 1 are both 1, the model's own table decides, and must say what the descriptor says.
TEST(Model, EveryCollectivesBusFactorIsItsDescriptors) {
  for (const Collective* collective : all_collectives()) {
    LoadedReport loaded = synthetic(2, [](double m) { return ring_time(2, m); });
    loaded.report.benchmark = std::string(collective->name);
    for (auto& row : loaded.report.rows) {
      row = changed(row, [&](nlohmann::json& fields) { fields["bus_bandwidth_factor"] = collective->bus_factor.at(2); });
    }
    const Model model = fit_model({loaded});
    ASSERT_EQ(model.series.size(), 1u);
    EXPECT_EQ(model.series.front().bus_factor, collective->bus_factor.formula) << collective->name;
  }
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
  // The ring's 14 hops are one chain, 2 of every 8 of which (one per host) cross the 5 ms link;
  // the rest take the fitted 5 us; every step's bytes wait for the 10 Gbit/s link.
  const double expected = 3.5 * 5000 + 10.5 * 5 + 2.0 * 7 / 8 * (1 << 20) / 1250;
  EXPECT_NEAR(document.tables.front().groups.front().rows[0][1].get<double>(), expected, 1e-6);
}

// A protocol that switches on the message per step: a ring sends m/p per step; an eager limit at
// 8 KiB per step: eager 5 us at 2 GB/s, above it 40 us at 1 GB/s per step.
double ring_protocol_time(int p, double bytes) {
  const bool eager = bytes / p <= 8192;
  return 2.0 * (p - 1) * (eager ? 5 : 40) + 2.0 * (p - 1) / p * bytes / (eager ? 2000 : 1000);
}

TEST(Model, ProtocolBreakpointsCarryAcrossWorldSizesAsMessagesPerStep) {
  const Model model = fit_model({synthetic(2, [](double m) { return ring_protocol_time(2, m); }, "ring"),
                                 synthetic(4, [](double m) { return ring_protocol_time(4, m); }, "ring")});
  const SeriesModel& series = model.series.front();
  // Per world size the switch is at a different m (8 to 32 KiB at 2 ranks, 32 to 128 KiB at 4),
  // the same message per step (4 to 16 KiB, 8 to 32 KiB): the fit across world sizes puts its
  // breakpoint at 8 KiB per step, with each protocol's own alpha and beta.
  ASSERT_EQ(series.per_world_size[0].pieces.size(), 2u);
  EXPECT_EQ(series.per_world_size[0].pieces[0].to_bytes, 8192u);
  EXPECT_EQ(series.per_world_size[1].pieces[0].to_bytes, 32768u);
  ASSERT_TRUE(series.across);
  const auto& across = *series.across;
  EXPECT_NEAR(across.alpha_us.value, 5, 1e-6);
  EXPECT_NEAR(across.beta_gbps.value, 2, 1e-6);
  ASSERT_EQ(across.larger_messages.size(), 1u);
  EXPECT_EQ(across.larger_messages[0].above_step_bytes, 8192u);
  EXPECT_NEAR(across.larger_messages[0].alpha_us.value, 40, 1e-6);
  EXPECT_NEAR(across.larger_messages[0].beta_gbps.value, 1, 1e-6);
  EXPECT_EQ(across.larger_messages[0].bootstrap.size(), across.bootstrap.size());
  // At 8 ranks 64 KiB is 8 KiB per step (eager) and 256 KiB is 32 KiB (not): each its own segment,
  // also after a round trip through the model file.
  const Model read = model_from_json(model_json(model), "m.json");
  ASSERT_EQ(read.series.front().across->larger_messages.size(), 1u);
  PredictOptions options;
  options.world_size = 8;
  const SeriesPredictor predictor(read.series.front(), options);
  for (const double m : {8.0, 65536.0, 262144.0, 4194304.0}) {
    EXPECT_NEAR(predictor.at(static_cast<std::uint64_t>(m)).time_us, ring_protocol_time(8, m), 1e-6 * m) << m;
  }
  // The fit document names each segment's messages per step.
  const Document fitted = fit_document(model);
  ASSERT_EQ(fitted.tables.size(), 2u);
  const auto& rows = fitted.tables[1].groups.front().rows;
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][2], "<= 8192");
  EXPECT_EQ(rows[1][2], "> 8192");
}

TEST(Model, TheLibrarysOwnEstimateIsShownBesideTheMeasuredTimeAndTheFit) {
  // Rows whose library gave its own estimate of a call (NCCL's ncclGroupSimulateEnd): here twice
  // the measured time. The fit does not use it; the fit's output shows the three side by side,
  // and the model file keeps it. Rows without one show no such table.
  auto two = synthetic(2, [](double m) { return ring_time(2, m); });
  auto four = synthetic(4, [](double m) { return ring_time(4, m); });
  for (auto* loaded : {&two, &four}) {
    for (auto& row : loaded->report.rows) {
      row = changed(row, [](nlohmann::json& fields) { fields["library_estimate_us"] = 2 * fields["time_us"]["p10"].get<double>(); });
    }
  }
  const Model model = fit_model({two, four});
  EXPECT_NEAR(model.series.front().across->alpha_us.value, 5, 1e-6);  // the fit is the measured times'
  const auto& world = model.series.front().per_world_size.front();
  ASSERT_EQ(world.library_estimates.size(), world.measured.size());
  const Document fitted = fit_document(model);
  ASSERT_EQ(fitted.tables.size(), 3u);
  const auto& table = fitted.tables[2];
  EXPECT_EQ(table.columns[3].name, "library_us");
  const auto& rows = table.groups.front().rows;
  ASSERT_EQ(rows.size(), 2 * world.measured.size());
  for (const auto& row : rows) {
    EXPECT_NEAR(row[5].get<double>(), 2.0, 1e-9) << row[1];  // library / measured
    EXPECT_NEAR(row[6].get<double>(), 1.0, 1e-6) << row[1];  // fit / measured
  }
  EXPECT_EQ(model_from_json(model_json(model), "m.json").series.front().per_world_size.front().library_estimates, world.library_estimates);
  EXPECT_EQ(fit_document(fit_model({synthetic(2, [](double m) { return ring_time(2, m); }),
                                    synthetic(4, [](double m) { return ring_time(4, m); })}))
                .tables.size(),
            2u);
}

TEST(Model, OneProtocolKeepsOneSegment) {
  const Model model = fit_model({synthetic(2, [](double m) { return ring_time(2, m); }, "ring"),
                                 synthetic(4, [](double m) { return ring_time(4, m); }, "ring")});
  EXPECT_TRUE(model.series.front().across->larger_messages.empty());
}

// Version 1 model files (before protocol segments) still read, as one segment.
TEST(Model, VersionOneModelFilesStillRead) {
  nlohmann::json document = model_json(fit_model({synthetic(2, [](double m) { return ring_time(2, m); }, "ring"),
                                                   synthetic(4, [](double m) { return ring_time(4, m); }, "ring")}));
  EXPECT_EQ(document["collbench_model"], 2);
  document["collbench_model"] = 1;
  document["series"][0].erase("time_aggregation");
  const Model read = model_from_json(document, "v1.json");
  EXPECT_EQ(read.series.front().time_aggregation, "mean");
  EXPECT_TRUE(read.series.front().across->larger_messages.empty());
  document["collbench_model"] = 3;
  EXPECT_THROW(model_from_json(document, "v3.json"), InputError);
  // A segment without the first segment's levels, or out of size order, is not a model.
  nlohmann::json segmented = model_json(fit_model({synthetic(2, [](double m) { return ring_protocol_time(2, m); }, "ring"),
                                                    synthetic(4, [](double m) { return ring_protocol_time(4, m); }, "ring")}));
  nlohmann::json twice = segmented;
  auto& larger = twice["series"][0]["across_world_sizes"]["larger_messages"];
  larger.push_back(larger[0]);
  EXPECT_THROW(model_from_json(twice, "twice.json"), InputError);
  nlohmann::json with_inter = segmented;
  with_inter["series"][0]["across_world_sizes"]["larger_messages"][0]["inter_alpha_us"] = {1, 1, 1};
  EXPECT_THROW(model_from_json(with_inter, "inter.json"), InputError);
}

// Open MPI's ring all_reduce runs recursive doubling below one element per rank: 8 bytes of
// float32 at 4 ranks. The fit prices those rows so, and gives alpha and beta back exactly.
TEST(Model, OpenMpisRingFallsBackToRecursiveDoublingBelowOneElementPerRank) {
  const auto ompi_ring = [](int p, double m) {
    return m / 4 < p ? std::log2(p) * (5 + m / 2000) : ring_time(p, m);
  };
  const Model model = fit_model({synthetic(2, [&](double m) { return ompi_ring(2, m); }, "ompi-tuned-4"),
                                 synthetic(4, [&](double m) { return ompi_ring(4, m); }, "ompi-tuned-4")});
  const auto& across = *model.series.front().across;
  EXPECT_EQ(across.form, "ring");
  EXPECT_NEAR(across.alpha_us.value, 5, 1e-6);
  EXPECT_NEAR(across.beta_gbps.value, 2, 1e-6);
  EXPECT_LT(across.rms_relative_error, 1e-9);
  PredictOptions options;
  options.world_size = 16;
  const SeriesPredictor predictor(model.series.front(), options);
  EXPECT_NEAR(predictor.at(32).time_us, 4 * (5 + 32 / 2000.0), 1e-9);  // 8 elements < 16 ranks
  EXPECT_NEAR(predictor.at(64).time_us, ring_time(16, 64), 1e-9);      // 16 elements: the ring
  // A ring that is not Open MPI's keeps the ring at every count.
  const Model plain = fit_model({synthetic(2, [](double m) { return ring_time(2, m); }, "ring"),
                                 synthetic(4, [](double m) { return ring_time(4, m); }, "ring")});
  EXPECT_NEAR(SeriesPredictor(plain.series.front(), options).at(32).time_us, ring_time(16, 32), 1e-9);
}

// Open MPI's binomial broadcast tree (ompi_coll_base_topo_build_bmtree): 0 -> 1, 2, 4; 1 -> 3, 5;
// 2 -> 6; 3 -> 7. At 8 ranks, 2 per host (a: 0-1, b: 2-3, c: 4-5, d: 6-7), host a's link carries 4
// copies (0->2, 0->4, 1->3, 1->5), host b's 2 (2->6, 3->7); each host takes in 2.
TEST(Model, OpenMpisBinomialBroadcastTreeOnHosts) {
  // The slowest rank: 7 (0 -> 1 within a, 1 -> 3 sharing a's link 4 ways, 3 -> 7 sharing b's 2 ways).
  const StepCoefficients slowest = ompi_binomial_broadcast(block_placement(8, 2), 0, false);
  EXPECT_EQ(slowest.intra_steps, 1);
  EXPECT_EQ(slowest.intra_bytes, 1);
  EXPECT_EQ(slowest.inter_steps, 2);
  EXPECT_EQ(slowest.inter_bytes, 6);
  // 4 ranks on 4 hosts: 0 -> 1, 2 (two copies on host 0's link), 1 -> 3: rank 3 after 2 + 1 copies.
  const StepCoefficients four = ompi_binomial_broadcast(block_placement(4, 1), 0, false);
  EXPECT_EQ(four.inter_steps, 2);
  EXPECT_EQ(four.inter_bytes, 3);
  EXPECT_EQ(four.intra_steps, 0);
  // The mean over ranks of each rank's finish (its own arrival, or its costliest send's):
  // ranks 0 and 2 finish at 1 hop / 2 copies, ranks 1 and 3 at 2 hops / 3 copies.
  const StepCoefficients mean = ompi_binomial_broadcast(block_placement(4, 1), 0, true);
  EXPECT_NEAR(mean.inter_steps, 1.5, 1e-12);
  EXPECT_NEAR(mean.inter_bytes, 2.5, 1e-12);
  // One host: the deepest rank is as many hops down as its index has bits set (7: three).
  const StepCoefficients one_host = ompi_binomial_broadcast(block_placement(8, 0), 0, false);
  EXPECT_EQ(one_host.intra_steps, 3);
  EXPECT_EQ(one_host.inter_steps, 0);
  // Another root: the tree turns with it (root 2 on host b: 2 -> 3 within b, then 2 -> 4 and 2 -> 6 ...).
  const StepCoefficients turned = ompi_binomial_broadcast(block_placement(8, 2), 2, false);
  EXPECT_EQ(turned.inter_bytes, 6);
  // The tuned algorithm's label picks it, and a prediction prices the tree: 4 MiB at 8 ranks,
  // 2 per host, 1 MB/s between hosts (1 byte per us), 10 ms alpha; 1 GB/s and 10 us within.
  nlohmann::json document = model_json(fit_model({synthetic(2, [](double m) { return 10 + m / 1000; }),
                                                   synthetic(4, [](double m) { return 20 + 2 * m / 1000; })}));
  auto& series = document["series"][0];
  series["key"]["benchmark"] = "broadcast";
  series["key"]["algorithm"] = "ompi-tuned-6";
  series["key"]["root"] = "0";
  series["time_aggregation"] = "max";
  auto& across = series["across_world_sizes"];
  across["form"] = "ompi_binomial";
  across["alpha_us"] = {10, 10, 10};
  across["beta_gbps"] = {1, 1, 1};
  across["inter_alpha_us"] = {10000, 10000, 10000};
  across["inter_beta_gbps"] = {0.001, 0.001, 0.001};
  across["bootstrap"] = nlohmann::json::array();
  const Model model = model_from_json(document, "bcast.json");
  PredictOptions options;
  options.world_size = 8;
  options.ranks_per_host = 2;
  const double m = 4194304;
  EXPECT_NEAR(SeriesPredictor(model.series.front(), options).at(4194304).time_us, 10 + m / 1000 + 2 * 10000 + 6 * m, 1e-6);
}

// Reports that combine the ranks' times differently (-a) are two costs, not one fit.
TEST(Model, MixedTimeAggregationsAreRefused) {
  LoadedReport mean = synthetic(2, [](double m) { return 1 + m / 100; });
  LoadedReport slowest = synthetic(4, [](double m) { return 1 + m / 100; });
  for (auto& row : mean.report.rows) row = changed(row, [](nlohmann::json& fields) { fields["time_aggregation"] = "mean"; });
  for (auto& row : slowest.report.rows) row = changed(row, [](nlohmann::json& fields) { fields["time_aggregation"] = "max"; });
  EXPECT_THROW(fit_model({mean, slowest}), InputError);
}

// Every form's steps add up to its a(p) and b(p), so one- and two-level fits agree on one host.
TEST(Model, EveryFormsStepsAddUpToItsCost) {
  for (const char* benchmark : {"all_reduce", "broadcast", "reduce", "all_gather", "reduce_scatter", "alltoall", "gather", "scatter", "sendrecv"}) {
    for (const auto& form : algorithm_forms(benchmark)) {
      for (int p = 2; p <= 70; ++p) {
        double steps = 0, share = 0;
        for (const auto& step : form.steps(p)) {
          steps += step.count;
          share += step.count * step.share;
        }
        EXPECT_NEAR(steps, form.latency_steps(p), 1e-9) << benchmark << " " << form.name << " p=" << p;
        EXPECT_NEAR(share, form.bandwidth_share(p), 1e-9) << benchmark << " " << form.name << " p=" << p;
        const StepCoefficients one_host = step_coefficients(form, block_placement(p, 0), 0);
        // A form that costs its placement itself (Open MPI's binomial tree) follows its own tree
        // (tested on its own below); the step forms add up.
        if (!form.placed) EXPECT_NEAR(one_host.intra_steps, form.latency_steps(p), 1e-9);
        EXPECT_EQ(one_host.inter_steps, 0);
      }
    }
  }
}

// Which steps cross hosts, and how many ranks of a host share its link in them.
TEST(Model, StepsAreCostedOnTheLinkTheyCross) {
  const auto form_named = [](const char* benchmark, const std::string& name) {
    for (const auto& form : algorithm_forms(benchmark)) {
      if (form.name == name) return form;
    }
    throw std::runtime_error("no form " + name);
  };
  // Ring over 16 ranks, 4 per host: the 30 steps are one chain of hops, 4 of every 16 of which
  // cross hosts (7.5 inter-host alphas, 22.5 intra-host); every step's m/16 waits for the link
  // between hosts, which one rank per host sends across.
  const StepCoefficients ring = step_coefficients(form_named("all_reduce", "ring"), block_placement(16, 4), 0);
  EXPECT_NEAR(ring.intra_steps, 22.5, 1e-12);
  EXPECT_NEAR(ring.inter_steps, 7.5, 1e-12);
  EXPECT_EQ(ring.intra_bytes, 0);
  EXPECT_NEAR(ring.inter_bytes, 30.0 / 16, 1e-12);
  EXPECT_EQ(ring.mixed_steps, 0);  // the chain's latency is already split between the links
  EXPECT_NEAR(ring.mixed_bytes, 30.0 / 16, 1e-12);
  // One rank per host: every hop crosses.
  const StepCoefficients spread = step_coefficients(form_named("all_reduce", "ring"), block_placement(4, 1), 0);
  EXPECT_EQ(spread.intra_steps, 0);
  EXPECT_EQ(spread.inter_steps, 6);
  // Recursive doubling: distances 1 and 2 stay on a host, 4 and 8 cross with all 4 ranks at once.
  const StepCoefficients doubling = step_coefficients(form_named("all_reduce", "recursive_doubling"), block_placement(16, 4), 0);
  EXPECT_EQ(doubling.intra_steps, 2);
  EXPECT_EQ(doubling.intra_bytes, 2);
  EXPECT_EQ(doubling.inter_steps, 2);
  EXPECT_EQ(doubling.inter_bytes, 8);
  EXPECT_EQ(doubling.mixed_steps, 0);
  // Binomial broadcast from rank 0, farthest first: 8 crosses (one sender), 4 crosses (two senders, one per host).
  const StepCoefficients tree = step_coefficients(form_named("broadcast", "binomial_tree"), block_placement(16, 4), 0);
  EXPECT_EQ(tree.inter_steps, 2);
  EXPECT_EQ(tree.inter_bytes, 2);
  EXPECT_EQ(tree.intra_steps, 2);
}

// Fixture reports (make_fixtures.py) on two hosts: alpha 2 us and 4 GB/s within a host, 50 us and
// 1.25 GB/s between them; the fit gives all four back.
TEST(Model, TwoHostsFitIntraAndInterHostParametersApart) {
  const Model model = fit_model(load_reports({data("model/two_hosts")}));
  ASSERT_EQ(model.series.size(), 2u);
  for (const auto& series : model.series) {
    ASSERT_TRUE(series.across) << describe_key(series.key);
    const auto& across = *series.across;
    EXPECT_EQ(across.form, series.key[2].second == "ring" ? "ring" : "recursive_doubling");
    EXPECT_TRUE(across.intra_measured);
    EXPECT_NEAR(across.alpha_us.value, 2, 1e-6);
    EXPECT_NEAR(across.beta_gbps.value, 4, 1e-6);
    ASSERT_TRUE(across.inter);
    EXPECT_NEAR(across.inter->alpha_us.value, 50, 1e-6);
    EXPECT_NEAR(across.inter->beta_gbps.value, 1.25, 1e-6);
    EXPECT_LT(across.rms_relative_error, 1e-9);
    ASSERT_EQ(series.per_world_size.size(), 3u);  // 2 on one host, 2 on two, 4 on two
    EXPECT_EQ(series.per_world_size[0].hosts, 1);
    EXPECT_EQ(series.per_world_size[1].hosts, 2);
  }
  // The model file keeps both levels.
  const Model read = model_from_json(model_json(model), "m.json");
  ASSERT_TRUE(read.series.front().across->inter);
  EXPECT_NEAR(read.series.front().across->inter->beta_gbps.value, 1.25, 1e-6);
  EXPECT_EQ(read.series.front().across->bootstrap.size(), model.series.front().across->bootstrap.size());
  EXPECT_EQ(read.series.front().per_world_size[1].hosts, 2);
}

double predicted(const Model& model, const std::string& algorithm, const PredictOptions& options, std::uint64_t bytes) {
  for (const auto& series : model.series) {
    if (series.key[2].second == algorithm) return SeriesPredictor(series, options).at(bytes).time_us;
  }
  throw std::runtime_error("no series " + algorithm);
}

TEST(Model, TwoLevelPredictionsAreTheClosedForm) {
  const Model model = fit_model(load_reports({data("model/two_hosts")}));
  const std::string doubling = "ompi-tuned-3 (recursive_doubling)";
  PredictOptions options;
  options.world_size = 16;
  options.ranks_per_host = 4;
  for (const double m : {8.0, 65536.0, 1048576.0}) {
    const auto bytes = static_cast<std::uint64_t>(m);
    // Ring: 30 steps; a quarter of the chain's hops cross hosts; the bytes at the slow link.
    EXPECT_NEAR(predicted(model, "ring", options, bytes), 7.5 * 50 + 22.5 * 2 + 30 * m / 16 / 1250, 1e-6 * m + 1e-6);
    // Recursive doubling: 2 steps within a host, 2 across with 4 ranks sharing the link.
    EXPECT_NEAR(predicted(model, doubling, options, bytes), 2 * (2 + m / 4000) + 2 * (50 + 4 * m / 1250), 1e-6 * m + 1e-6);
  }
  // The link between hosts replaced: 5 ms and 100 Gbit/s.
  options.inter_latency_us = 5000;
  options.inter_bandwidth_gbps = 12.5;
  // (100 Gbit/s between hosts is faster than the 4 GB/s within: the ring's bytes wait for the latter.)
  EXPECT_NEAR(predicted(model, "ring", options, 1 << 20), 7.5 * 5000 + 22.5 * 2 + 30 * 1048576.0 / 16 / 4000, 1e-6);
  EXPECT_NEAR(predicted(model, doubling, options, 1 << 20), 2 * (2 + 1048576.0 / 4000) + 2 * (5000 + 4 * 1048576.0 / 12500), 1e-6);
  // A link between hosts faster than within: the ring's bytes take the intra-host time; its
  // chain still pays each hop's own latency.
  options.inter_latency_us = 0.5;
  options.inter_bandwidth_gbps = 100;
  EXPECT_NEAR(predicted(model, "ring", options, 1 << 20), 7.5 * 0.5 + 22.5 * 2 + 30 * 1048576.0 / 16 / 4000, 1e-6);
  // All 16 on one host: only the intra-host parameters.
  PredictOptions one_host;
  one_host.world_size = 16;
  EXPECT_NEAR(predicted(model, "ring", one_host, 1 << 20), 30 * (2 + 1048576.0 / 16 / 4000), 1e-6);
  // The fitted world size and placement itself: its own Hockney fit (4 ranks, 2 hosts).
  PredictOptions fitted;
  fitted.world_size = 4;
  fitted.ranks_per_host = 2;
  const Model read = model_from_json(model_json(model), "m.json");
  for (const auto& series : read.series) {
    if (series.key[2].second != "ring") continue;
    const Prediction prediction = SeriesPredictor(series, fitted).at(1 << 20);
    EXPECT_TRUE(prediction.from_world_size_fit);
    EXPECT_NEAR(prediction.time_us, 6 * (0.5 * 50 + 0.5 * 2) + 6 * 1048576.0 / 4 / 1250, 1e-6);
  }
}

TEST(Model, RunsWithOneRankPerHostFitTheLinkBetweenHostsOnly) {
  // Recursive doubling at 2 ranks on 2 hosts and 4 ranks on 2 hosts: distance 1 stays within a
  // host at 4 ranks, so its alpha and beta are measured there; at 2 ranks only the link between.
  const Model doubling = fit_model(load_reports({data("model/two_hosts/doubling-np2-2-hosts.json")}));
  EXPECT_FALSE(doubling.series.front().across);  // one world size
  // The ring: the hops of its chain within a host measure the intra-host alpha (2 us); its bytes
  // always wait for the link between hosts, so the intra-host beta is not measured and the
  // inter-host one stands in (an upper bound), said so.
  const Model model = fit_model(load_reports({data("model/two_hosts/ring-np2-2-hosts.json"), data("model/two_hosts/ring-np4-2-hosts.json")}));
  const auto& across = *model.series.front().across;
  EXPECT_FALSE(across.intra_measured);
  ASSERT_TRUE(across.inter);
  EXPECT_NEAR(across.inter->alpha_us.value, 50, 1e-6);
  EXPECT_NEAR(across.inter->beta_gbps.value, 1.25, 1e-6);
  EXPECT_NEAR(across.alpha_us.value, 2, 1e-6);
  EXPECT_NEAR(across.beta_gbps.value, 1.25, 1e-6);
  bool said = false;
  for (const auto& note : model.series.front().notes) said = said || note.find("intra-host bytes are costed with the inter-host beta") != std::string::npos;
  EXPECT_TRUE(said);
  const Document fitted = fit_document(model);  // by value: the rows below live in it
  const auto& rows = fitted.tables[1].groups.front().rows;
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][3], "intra-host (alpha only)");
  EXPECT_EQ(rows[1][3], "inter-host");
}

TEST(Model, TwoHostsThroughTheCommandLine) {
  const std::string dir = ::testing::TempDir() + "/model_two_hosts";
  std::filesystem::create_directories(dir);
  const std::string model = dir + "/model.json";
  std::filesystem::remove(model);
  ASSERT_EQ(run_cli({"model", "fit", data("model/two_hosts"), "--out", model}), 0);
  EXPECT_EQ(run_cli({"model", "predict", model, "--np", "16", "--ranks-per-host", "4", "--inter-latency", "5ms", "--inter-bandwidth",
                     "10Gbit", "--sizes", "8,1M"}),
            0);
  std::string err;
  EXPECT_EQ(run_cli({"model", "predict", model, "--np", "10", "--ranks-per-host", "4"}, &err), 2);
  EXPECT_NE(err.find("not a multiple of --ranks-per-host"), std::string::npos) << err;
}

TEST(Model, BadInputIsExitTwoWithOneLine) {
  const std::string dir = ::testing::TempDir() + "/model_bad";
  std::filesystem::create_directories(dir);
  // One size only.
  LoadedReport one_size = synthetic(2, [](double m) { return 1 + m; });
  one_size.report.rows.resize(1);
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
  // A model file whose root is not a rank.
  nlohmann::json edited = model_json(fit_model({synthetic(2, [](double m) { return 1 + m / 100; })}));
  edited["series"][0]["key"]["root"] = "zero";
  EXPECT_THROW(model_from_json(edited, "edited.json"), InputError);
  // Byte counts that are not whole numbers of at least 0 (nlohmann would wrap -5 to 2^64 - 5).
  const nlohmann::json fitted = model_json(fit_model({synthetic(2, [](double m) { return 1 + m / 100; })}));
  for (const nlohmann::json& bytes : {nlohmann::json(-5), nlohmann::json(1.5), nlohmann::json("8")}) {
    nlohmann::json negative = fitted;
    negative["series"][0]["largest_bytes"] = bytes;
    EXPECT_THROW(model_from_json(negative, "bytes.json"), InputError) << bytes;
    negative = fitted;
    negative["series"][0]["per_world_size"][0]["pieces"][0]["from_bytes"] = bytes;
    EXPECT_THROW(model_from_json(negative, "bytes.json"), InputError) << bytes;
    negative = fitted;
    negative["series"][0]["per_world_size"][0]["measured"][0][0] = bytes;
    EXPECT_THROW(model_from_json(negative, "bytes.json"), InputError) << bytes;
  }
  EXPECT_NO_THROW(model_from_json(fitted, "bytes.json"));
  // Reports of two machines.
  LoadedReport other = synthetic(4, [](double m) { return 1 + m / 100; });
  other.report.context.versions["mpi"] = "another MPI 9.9";
  EXPECT_THROW(fit_model({synthetic(2, [](double m) { return 1 + m / 100; }), other}), InputError);
  // Reports of two builds on one machine: the code that made a report is not the machine.
  LoadedReport rebuilt = synthetic(4, [](double m) { return 1 + m / 100; });
  rebuilt.report.context.versions["collbench_commit"] = "0123456789abcdef0123456789abcdef01234567";
  rebuilt.report.context.versions["collbench_tree"] = "modified (diff sha256 0011223344556677)";
  EXPECT_NO_THROW(fit_model({synthetic(2, [](double m) { return 1 + m / 100; }), rebuilt}));
}

// The bad inputs issue 25 names, from fixture folders through the command line: one line, exit 2.
TEST(Model, BadInputFoldersAreOneLineAndExitTwo) {
  const auto one_line = [](const std::string& err) { return std::count(err.begin(), err.end(), '\n') == 1; };
  std::string err;
  // A folder whose sweep has one size.
  EXPECT_EQ(run_cli({"model", "fit", data("model/bad/one_size")}, &err), 2);
  EXPECT_NE(err.find("has one size only"), std::string::npos) << err;
  EXPECT_TRUE(one_line(err)) << err;
  // Reports of two machines in one folder.
  EXPECT_EQ(run_cli({"model", "fit", data("model/bad/two_machines")}, &err), 2);
  EXPECT_NE(err.find("different machines"), std::string::npos) << err;
  EXPECT_TRUE(one_line(err)) << err;
  // A report kind the model does not apply to (a ddp_step report to fit).
  EXPECT_EQ(run_cli({"model", "fit", data("model/ddp/report.json")}, &err), 2);
  EXPECT_NE(err.find("collective reports only"), std::string::npos) << err;
  EXPECT_TRUE(one_line(err)) << err;
  // No world sizes to extrapolate from: one world size fitted, another asked for.
  const std::string dir = ::testing::TempDir() + "/model_bad_folders";
  std::filesystem::create_directories(dir);
  const std::string single = dir + "/single.json";
  std::filesystem::remove(single);
  ASSERT_EQ(run_cli({"model", "fit", data("model/two_hosts/ring-np2-one-host.json"), "--out", single}), 0);
  EXPECT_EQ(run_cli({"model", "predict", single, "--np", "8"}, &err), 2);
  EXPECT_NE(err.find("no world sizes to extrapolate from"), std::string::npos) << err;
  EXPECT_TRUE(one_line(err)) << err;
  EXPECT_EQ(run_cli({"model", "ddp", single, data("model/ddp/report.json"), "--np", "8"}, &err), 2);
  EXPECT_NE(err.find("no world sizes to extrapolate from"), std::string::npos) << err;
  // Ranks on several hosts without saying which rank ran where.
  LoadedReport unplaced = load_reports({data("model/two_hosts/ring-np4-2-hosts.json")}).front();
  unplaced.report.context.ranks.clear();
  EXPECT_THROW(fit_model({unplaced}), InputError);
  // The same world size and host count placed two ways.
  LoadedReport round_robin = load_reports({data("model/two_hosts/ring-np4-2-hosts.json")}).front();
  round_robin.path = "round-robin.json";
  for (auto& rank : round_robin.report.context.ranks) rank.host = rank.rank % 2 == 0 ? "node-a" : "node-b";
  EXPECT_THROW(fit_model({load_reports({data("model/two_hosts/ring-np4-2-hosts.json")}).front(), round_robin}), InputError);
}

// model predict --plot: the measured points and fits of every fitted world size, and the
// prediction with its band, in the data file gnuplot reads.
TEST(Model, PredictPlotsMeasuredPointsFitsAndThePrediction) {
  const Model model = model_from_json(model_json(fit_model({synthetic(2, [](double m) { return ring_time(2, m); }, "ring"),
                                                             synthetic(4, [](double m) { return ring_time(4, m); }, "ring")})),
                                      "m.json");
  PredictOptions options;
  options.world_size = 16;
  options.sizes = {8, 1u << 20};
  const std::vector<ModelPlot> plots = model_plots(model, options);
  ASSERT_EQ(plots.size(), 1u);
  const ModelPlot& plot = plots.front();
  ASSERT_EQ(plot.predicted.sizes.size(), 2u);
  EXPECT_NEAR(plot.predicted.time_us[1], ring_time(16, 1 << 20), 1e-6);
  ASSERT_EQ(plot.measured.size(), 2u);  // 2 and 4 ranks, their points kept in the model file
  ASSERT_EQ(plot.measured[1].points.size(), 10u);
  EXPECT_EQ(plot.measured[1].points[0].first, 8u);
  EXPECT_NEAR(plot.measured[1].points[0].second, ring_time(4, 8), 1e-9);
  ASSERT_EQ(plot.fitted.size(), 2u);
  EXPECT_NEAR(plot.fitted[1].points.back().second, ring_time(4, 2097152), 1e-6);
  std::string data_text;
  const std::string script = model_plot_script_text(plot, "p.dat", "p.png", &data_text);
  EXPECT_NE(script.find("filledcurves"), std::string::npos);
  EXPECT_NE(script.find("index 4 using 1:2 with lines"), std::string::npos) << script;  // the last block: the 4-rank fit
  EXPECT_NE(data_text.find("1048576 "), std::string::npos);
  // Through the command line, with a gnuplot that is not there: data and script are written, exit 0.
  const std::string dir = ::testing::TempDir() + "/model_plot";
  std::filesystem::create_directories(dir);
  const std::string file = dir + "/model.json";
  report::write_json_atomically(file, model_json(model));
  std::string err;
  EXPECT_EQ(run_cli({"model", "predict", file, "--np", "16", "--plot", dir + "/predict.png", "--gnuplot", dir + "/no-gnuplot"}, &err), 0) << err;
  EXPECT_TRUE(std::filesystem::exists(dir + "/predict.dat"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/predict.gp"));
  // --plot belongs to predict; an image that is not .png or .svg is refused.
  EXPECT_EQ(run_cli({"model", "fit", data("model/two_hosts"), "--plot", dir + "/fit.png"}, &err), 2);
  EXPECT_NE(err.find("--plot draws predictions"), std::string::npos) << err;
  EXPECT_EQ(run_cli({"model", "predict", file, "--np", "16", "--plot", dir + "/predict.txt"}, &err), 2);
}

// Text from a report or a model file reaches the terminal only through the escaping helper.
TEST(Model, FileTextIsEscapedOnTheWayOut) {
  const std::string dir = ::testing::TempDir() + "/model_escape";
  std::filesystem::create_directories(dir);
  // A report named with an escape sequence, of a kind the model does not fit: the error quotes its path.
  const std::string hostile = dir + "/ddp\x1b[2J.json";
  std::filesystem::copy_file(data("model/ddp/report.json"), hostile, std::filesystem::copy_options::overwrite_existing);
  std::string err;
  EXPECT_EQ(run_cli({"model", "fit", hostile}, &err), 2);
  EXPECT_NE(err.find("ddp?[2J.json"), std::string::npos) << err;
  EXPECT_EQ(err.find('\x1b'), std::string::npos) << err;
  // A model whose algorithm label carries an escape sequence and a newline.
  Model model = fit_model(load_reports({data("model/two_hosts")}));
  model.series.front().key[2].second = "ring\x1b]0;title\x07\nforged line";
  const std::string path = dir + "/model.json";
  report::write_json_atomically(path, model_json(model));
  std::vector<std::string> args{"collbench", "model", "predict", path, "--np", "16", "--ranks-per-host", "4", "--sizes", "1M"};
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  ::testing::internal::CaptureStdout();
  const int code = run_command_line(static_cast<int>(argv.size()), argv.data());
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(code, 0);
  EXPECT_EQ(out.find('\x1b'), std::string::npos);
  EXPECT_EQ(out.find('\x07'), std::string::npos);
  EXPECT_EQ(out.find("\nforged line"), std::string::npos);
  EXPECT_NE(out.find("?forged line"), std::string::npos) << out;
}

// model predict --trace (model_trace.h): a hand-made job priced by the ring fit (alpha 5 us, beta
// 2 GB/s): each call is ring_time at its group's size and bytes, the sequence the slowest rank's sum.
replay::Trace two_rank_job() {
  replay::Trace trace;
  trace.format = "test";
  trace.world_size = 2;
  trace.groups = {{{0, 1}, "world"}};
  for (int rank = 0; rank < 2; ++rank) {
    auto& calls = trace.sequences[rank];
    for (const std::uint64_t count : {std::uint64_t{262144}, std::uint64_t{2048}}) {  // 1 MiB and 8 KiB of float32
      replay::TraceCall call;
      call.collective = replay::TraceCollective::kAllReduce;
      call.count = count;
      calls.push_back(call);
    }
    replay::TraceCall broadcast;
    broadcast.collective = replay::TraceCollective::kBroadcast;
    broadcast.count = 100;
    broadcast.root = 0;
    calls.push_back(broadcast);
  }
  return trace;
}

TEST(ModelTrace, EachCallIsTheFitAtItsGroupsSizeAndTheSequenceTheirSum) {
  const Model model = fit_model({synthetic(2, [](double m) { return ring_time(2, m); }),
                                 synthetic(4, [](double m) { return ring_time(4, m); })});
  PredictOptions options;
  options.world_size = 8;
  const replay::Trace scaled = replay::scale_trace(two_rank_job(), {8, replay::ScaleCounts::kPerRank}, "job");
  const TracePrediction prediction = predict_trace(model, scaled, options);
  EXPECT_EQ(prediction.world_size, 8);
  EXPECT_NEAR(prediction.sequence_us, ring_time(8, 1 << 20) + ring_time(8, 8192), 1e-6);
  EXPECT_LE(prediction.sequence_low_us, prediction.sequence_us);
  EXPECT_GE(prediction.sequence_high_us, prediction.sequence_us);
  ASSERT_EQ(prediction.rows.size(), 2u);  // all_reduce float32 at 8, broadcast float32 at 8
  const TraceRowPrediction& all_reduce = prediction.rows[0];
  EXPECT_EQ(all_reduce.collective, "all_reduce");
  EXPECT_EQ(all_reduce.group_size, 8);
  EXPECT_EQ(all_reduce.calls, 2u);
  EXPECT_EQ(all_reduce.bytes, (1u << 20) + 8192u);
  ASSERT_TRUE(all_reduce.call_us && all_reduce.total_us);
  EXPECT_NEAR(*all_reduce.call_us, (ring_time(8, 1 << 20) + ring_time(8, 8192)) / 2, 1e-6);
  EXPECT_NEAR(*all_reduce.total_us, prediction.sequence_us, 1e-6);
  // The model has no broadcast: counted on every rank, named, never priced at 0.
  EXPECT_EQ(prediction.rows[1].collective, "broadcast");
  EXPECT_FALSE(prediction.rows[1].total_us);
  EXPECT_EQ(prediction.unpriced_calls, 8u);
  bool named = false;
  for (const std::string& note : prediction.notes) named = named || note.find("not priced: the trace's broadcast calls") != std::string::npos;
  EXPECT_TRUE(named);
  // At its recorded 2 ranks each call is the 2-rank fit itself.
  options.world_size = 2;
  EXPECT_NEAR(predict_trace(model, two_rank_job(), options).sequence_us, ring_time(2, 1 << 20) + ring_time(2, 8192), 1e-6);
}

TEST(ModelTrace, ReplicatedPairsArePricedAtTheirOwnSize) {
  const Model model = fit_model({synthetic(2, [](double m) { return ring_time(2, m); }),
                                 synthetic(4, [](double m) { return ring_time(4, m); })});
  replay::Trace trace;
  trace.format = "test";
  trace.world_size = 4;
  trace.groups = {{{0, 1, 2, 3}, "world"}, {{0, 1}, "tp0"}, {{2, 3}, "tp1"}};
  for (int rank = 0; rank < 4; ++rank) {
    replay::TraceCall pair, world;
    pair.count = 16384;  // 64 KiB on the TP pair
    pair.group = rank < 2 ? 1 : 2;
    world.count = 262144;  // 1 MiB on the world
    trace.sequences[rank] = {pair, world};
  }
  PredictOptions options;
  options.world_size = 8;
  const TracePrediction prediction = predict_trace(model, replay::scale_trace(trace, {8, replay::ScaleCounts::kPerRank}, "job"), options);
  ASSERT_EQ(prediction.rows.size(), 2u);
  EXPECT_EQ(prediction.rows[0].group_size, 2);
  EXPECT_EQ(prediction.rows[0].calls, 4u);  // the pairs of 8 ranks
  EXPECT_NEAR(*prediction.rows[0].call_us, ring_time(2, 65536), 1e-6);
  EXPECT_EQ(prediction.rows[1].group_size, 8);
  EXPECT_NEAR(prediction.sequence_us, ring_time(2, 65536) + ring_time(8, 1 << 20), 1e-6);
}

// Through the command line, on the recorded DDP trace: its all-reduces priced at 4 ranks, each as
// the closed form of its bytes, and bad input as one line and exit 2.
TEST(ModelTrace, TheCommandLinePricesARecordedTrace) {
  const std::string dir = ::testing::TempDir() + "/model_trace";
  std::filesystem::create_directories(dir);
  const std::string model = dir + "/model.json";
  report::write_json_atomically(model, model_json(fit_model({synthetic(2, [](double m) { return ring_time(2, m); }),
                                                             synthetic(4, [](double m) { return ring_time(4, m); })})));
  const std::string torch = std::string(COLLBENCH_SUMMARIZE_DATA) + "/../../replay/data/torch/";
  const std::vector<std::string> files{torch + "ddp.rank0.kineto.json", torch + "ddp.rank1.kineto.json"};
  double want = 0;
  const replay::Trace trace = replay::read_trace(files);
  for (const replay::TraceCall& call : trace.sequences.at(0)) {
    if (call.collective == replay::TraceCollective::kAllReduce) want += ring_time(4, static_cast<double>(replay::payload_bytes(call, trace)));
  }
  ASSERT_GT(want, 0);
  std::string out, err;
  ASSERT_EQ(run_cli({"model", "predict", model, "--trace", files[0], "--trace", files[1], "--np", "4", "--format", "json"}, &err, &out), 0) << err;
  const nlohmann::json printed = nlohmann::json::parse(out);
  const nlohmann::json& rows = printed["tables"][0]["rows"];
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows.back()["collective"], "sequence");
  EXPECT_NEAR(rows.back()["total_us"].get<double>(), want, 1e-6 * want);
  EXPECT_EQ(printed["scale"], "2->4 per-rank");
  EXPECT_EQ(run_cli({"model", "predict", model, "--trace", "/dev/zero"}, &err), 2);
  EXPECT_NE(err.find("16 MiB cap"), std::string::npos) << err;
  EXPECT_EQ(run_cli({"model", "predict", model, "--trace", files[0], "--trace", files[1], "--scale-counts", "some"}, &err), 2);
  EXPECT_NE(err.find("unknown counts 'some' for --scale-counts (use per-rank or total)"), std::string::npos) << err;
  EXPECT_EQ(run_cli({"model", "predict", model, "--trace", files[0], "--trace-format", "chrome"}, &err), 2);
  EXPECT_NE(err.find("unknown trace format 'chrome' for --trace-format"), std::string::npos) << err;
  // A subgroup-free trace shrinks; the pipeline's sends do not (replay_perf's one line).
  EXPECT_EQ(run_cli({"model", "predict", model, "--trace", torch + "pipeline.rank0.kineto.json", "--trace", torch + "pipeline.rank1.kineto.json",
                     "--np", "3"}, &err), 2);
  EXPECT_NE(err.find("--np 3 is not a multiple of the trace's 2 ranks"), std::string::npos) << err;
  EXPECT_EQ(run_cli({"model", "predict", model, "--trace", files[0], "--trace", files[1], "--sizes", "8"}, &err), 2);
}

}  // namespace
}  // namespace collbench::summarize
