// The main job's health line per collective report (collbench table --summary).
#include <gtest/gtest.h>

#include <functional>

#include "report/report_json.h"
#include "summarize/tables/nccl_table.h"
#include "curves.h"
#include "test_data.h"

namespace collbench::summarize {
namespace {

// Every row's over-ranks views: the slowest rank's and the fastest's mean time.
LoadedReport with_rank_spread(LoadedReport loaded, const std::vector<double>& max_over_min) {
  for (std::size_t i = 0; i < loaded.report.rows.size(); ++i) {
    auto& row = loaded.report.rows[i];
    const double mean = *row.time_us;
    row = changed(row, [&](nlohmann::json& fields) {
      fields["time_over_ranks_us"] = {{"mean", mean}, {"max", mean * max_over_min[i]}, {"min", mean}};
    });
  }
  return loaded;
}

TEST(Health, ARisingCurveIsOk) {
  EXPECT_EQ(health_of(curve({{1024, 10, 0.1}, {4096, 12, 0.34}, {16384, 20, 0.8}})), "ok");
  EXPECT_EQ(health_of(on_cpu(curve({{1024, 10, 0.1}, {4096, 12, 0.34}, {16384, 20, 0.8}}))), "ok");
}

// The main job's all_reduce on this VM: 3.23 GB/s at 512K, 0.747 at 8M. 512K's buffers (1 MiB a
// rank) fit in the 2 MiB L2, 8M's (16 MiB) do not: every CPU does that, so it is a note.
TEST(Health, AFallPastACacheOnACpuIsANote) {
  const std::string health = health_of(on_cpu(curve({{8, 5, 0.002}, {512u << 10, 160, 3.23}, {8u << 20, 11000, 0.747}})));
  EXPECT_EQ(health.rfind("ok (note: busbw falls with size: 3.23 GB/s at 512K, 0.747 at 8M, past the L2 (2M a rank), as on any CPU)", 0), 0u)
      << health;
}

// The main job's all_reduce on an AMD EPYC VM (1 MiB L2 a core, a 32 MiB L3 for both cores,
// 2026-12-01): 8.37 GB/s at 2M, 4.24 at 8M. 8M's 16 MiB a rank nominally fit the rank's 16 MiB
// share of the L3, but the transport's copies and the other rank's buffers share it: a note.
TEST(Health, AFallAtTheNominalEdgeOfASharedCacheIsANote) {
  LoadedReport loaded = on_cpu(curve({{8, 5, 0.002}, {2u << 20, 250, 8.37}, {8u << 20, 1980, 4.24}}));
  loaded.report.context.machine["caches"] = {{{"level", 1}, {"bytes", 32768u}, {"shared_by_cores", 1}},
                                             {{"level", 2}, {"bytes", 1048576u}, {"shared_by_cores", 1}},
                                             {{"level", 3}, {"bytes", 33554432u}, {"shared_by_cores", 2}}};
  const std::string health = health_of(loaded);
  EXPECT_EQ(health.rfind("ok (note: busbw falls with size: 8.37 GB/s at 2M, 4.24 at 8M, past the L3 (16M a rank), as on any CPU)", 0), 0u)
      << health;
}

// Past every cache nothing explains a fall: 256M's and 1G's buffers (512 MiB and 2 GiB a rank) fit
// in no cache (the shared L3 gives each of the 2 ranks 150 MiB).
TEST(Health, AFallWhereNoCacheExplainsItIsFlagged) {
  const std::string health =
      health_of(on_cpu(curve({{512u << 10, 160, 3.2}, {256u << 20, 300000, 2.0}, {1024u << 20, 2400000, 0.9}})));
  EXPECT_EQ(health.rfind("check: busbw falls with size: 2 GB/s at 256M, 0.9 at 1G, past every cache the report names", 0), 0u)
      << health;
}

TEST(Health, AFallOnAGpuIsFlagged) {
  const std::string health = health_of(on_gpus(curve({{1024, 10, 0.1}, {1u << 20, 200, 5.2}, {4u << 20, 2000, 2.1}})));
  EXPECT_EQ(health.rfind("check: busbw falls with size", 0), 0u) << health;
  EXPECT_NE(health.find("at 1M"), std::string::npos) << health;
  // Within 30 % of the peak is not flagged.
  EXPECT_EQ(health_of(on_gpus(curve({{1024, 10, 0.1}, {1u << 20, 200, 5.2}, {4u << 20, 1000, 4.0}}))), "ok");
}

// Reports from before the caches were recorded: a CPU's fall cannot be judged, and says why.
TEST(Health, AFallOnACpuWithNoCachesRecordedIsANote) {
  const std::string health = health_of(curve({{1024, 10, 0.1}, {1u << 20, 200, 5.2}, {4u << 20, 2000, 2.1}}));
  EXPECT_EQ(health.rfind("ok (note: busbw falls with size: 5.2 GB/s at 1M, 2.1 at 4M (a CPU run whose report names no caches", 0), 0u)
      << health;
}

TEST(Health, OneSizeFarOffItsNeighboursIsFlagged) {
  const std::string health = health_of(on_cpu(curve({{1024, 10, 0.1}, {4096, 45, 0.09}, {16384, 20, 0.8}})));
  EXPECT_EQ(health.rfind("check: 4K takes 2.2x its larger neighbour's time", 0), 0u) << health;
}

// A scatter on a loaded machine: one of 32K's 20 iterations was preempted for 50 ms, so its mean is
// 228x its neighbours' while its median is in line. The shape is judged by the median.
TEST(Health, OnePreemptedIterationIsNotASlowSize) {
  LoadedReport loaded = on_cpu(curve({{8u << 10, 9, 1.8}, {32u << 10, 12, 5.4}, {128u << 10, 20, 13}}));
  loaded.report.rows[1] = changed(loaded.report.rows[1], [](nlohmann::json& row) { row["time_us"]["mean"] = 2500; });
  EXPECT_EQ(health_of(loaded), "ok");
}

TEST(Health, WrongElementsAndPartialReportsAreFlagged) {
  // 3 wrong elements in each of the 2 rows.
  EXPECT_EQ(health_of(on_cpu(curve({{1024, 10, 0.1}, {4096, 12, 0.34}}, 3))), "check: 6 wrong elements");
  LoadedReport partial = on_cpu(curve({{1024, 10, 0.1}, {4096, 12, 0.34}}));
  partial.report.status = "partial";
  EXPECT_EQ(health_of(partial), "check: partial report");
}

// --inject-slowdown 400 --inject-slowdown-rank 1: rank 1's samples are 5x the others' at every size.
TEST(Health, ARankFarSlowerThanTheOthersIsFlagged) {
  const auto sizes = curve({{8, 5, 0.002}, {1024, 10, 0.1}, {4096, 12, 0.34}, {16384, 20, 0.8}});
  const std::string health = health_of(on_cpu(with_rank_spread(sizes, {5, 5, 5, 5})));
  EXPECT_EQ(health, "check: a rank far slower than the others: the slowest rank's time over 3x the fastest's in 4 of 4 sizes (up to 5x)");
  // A spread at a few sizes (up to 10x in a clean run) is not a slow rank: it must show in at least
  // three quarters of the sizes (here 2 of 4 is not, 3 of 4 is).
  EXPECT_EQ(health_of(on_cpu(with_rank_spread(sizes, {10, 8, 1.2, 1.1}))), "ok");
  EXPECT_EQ(health_of(on_cpu(with_rank_spread(sizes, {10, 8, 4, 1.1}))).rfind("check: a rank far slower", 0), 0u);
}

// A rooted collective's root waits for the others (gather: 995x over four simulated hosts in a
// clean run), and sendrecv's ranks wait only for their peers: their spread is not judged.
TEST(Health, TheSpreadOfCollectivesWhoseRanksLeaveApartIsNotJudged) {
  const auto sizes = curve({{8, 5, 0.002}, {1024, 10, 0.1}, {4096, 12, 0.34}, {16384, 20, 0.8}});
  for (const char* benchmark : {"broadcast", "reduce", "gather", "scatter", "sendrecv"}) {
    LoadedReport loaded = on_cpu(with_rank_spread(sizes, {995, 400, 90, 50}));
    loaded.report.benchmark = benchmark;
    EXPECT_EQ(health_of(loaded), "ok") << benchmark;
  }
  for (const char* benchmark : {"all_gather", "reduce_scatter", "alltoall"}) {
    LoadedReport loaded = on_cpu(with_rank_spread(sizes, {5, 5, 5, 5}));
    loaded.report.benchmark = benchmark;
    EXPECT_EQ(health_of(loaded).rfind("check: a rank far slower", 0), 0u) << benchmark;
  }
}

}  // namespace
}  // namespace collbench::summarize
