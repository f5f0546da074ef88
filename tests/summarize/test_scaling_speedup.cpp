// collbench scaling and speedup: the tables and their intervals.
// (tests/summarize/summarize_test_helpers.h has what the command files share.)
#include "summarize_test_helpers.h"

namespace collbench::summarize {
namespace {

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

}  // namespace
}  // namespace collbench::summarize
