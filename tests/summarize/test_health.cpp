// The main job's health line per collective report (collbench table --summary).
#include <gtest/gtest.h>

#include "summarize/nccl_table.h"

namespace collbench::summarize {
namespace {

std::string data(const std::string& name) { return std::string(COLLBENCH_SUMMARIZE_DATA) + "/" + name; }

// An all_reduce report with out-of-place rows of the given (bytes, time_us, busbw) at 2 ranks.
LoadedReport curve(const std::vector<std::tuple<std::uint64_t, double, double>>& points, std::int64_t wrong = 0) {
  LoadedReport loaded = load_reports({data("scaling/np2.json")}).front();
  report::ResultRow prototype = loaded.report.results.front();
  loaded.report.results.clear();
  for (const auto& [bytes, time, busbw] : points) {
    report::ResultRow row = prototype;
    row.bytes = bytes;
    row.placement = "out";
    row.time_us.mean = time;
    row.busbw_gbps = busbw;
    row.wrong = wrong;
    loaded.report.results.push_back(row);
  }
  return loaded;
}

TEST(Health, ARisingCurveIsOk) {
  EXPECT_EQ(health_of(curve({{1024, 10, 0.1}, {4096, 12, 0.34}, {16384, 20, 0.8}})), "ok");
}

TEST(Health, BandwidthFallingAtTheLargeEndIsFlagged) {
  const std::string health = health_of(curve({{1024, 10, 0.1}, {1u << 20, 200, 5.2}, {4u << 20, 2000, 2.1}}));
  EXPECT_EQ(health.rfind("check: busbw falls with size", 0), 0u) << health;
  EXPECT_NE(health.find("at 1M"), std::string::npos) << health;
  // Within 30 % of the peak is not flagged.
  EXPECT_EQ(health_of(curve({{1024, 10, 0.1}, {1u << 20, 200, 5.2}, {4u << 20, 1000, 4.0}})), "ok");
}

TEST(Health, OneSizeFarOffItsNeighboursIsFlagged) {
  const std::string health = health_of(curve({{1024, 10, 0.1}, {4096, 45, 0.09}, {16384, 20, 0.8}}));
  EXPECT_NE(health.find("4K takes 2.2x"), std::string::npos) << health;
}

TEST(Health, WrongElementsAndPartialReportsAreFlagged) {
  EXPECT_NE(health_of(curve({{1024, 10, 0.1}, {4096, 12, 0.34}}, 3)).find("wrong elements"), std::string::npos);
  LoadedReport partial = curve({{1024, 10, 0.1}, {4096, 12, 0.34}});
  partial.report.status = "partial";
  EXPECT_NE(health_of(partial).find("partial report"), std::string::npos);
}

}  // namespace
}  // namespace collbench::summarize
