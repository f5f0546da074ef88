// A pt2pt report's link matrix as the summarizer reads and draws it: read typed, refused with one
// sentence when malformed, and written as a heat map's data (NaN where a link was not measured).
#include <gtest/gtest.h>

#include <string>

#include "workloads/pt2pt/report/pt2pt_view.h"
#include "report/report_json.h"
#include "summarize/plots/plot.h"
#include "workloads/pt2pt/report/pt2pt_rows.h"

namespace collbench {
namespace {

nlohmann::json pt2pt_report(const nlohmann::json& link_matrix) {
  nlohmann::json row = {{"kind", "pt2pt"}, {"backend", "mpi"}, {"mode", "latency"}, {"link", "0->1"}, {"bytes", 8},
                        {"time_us", {{"min", 1.0}, {"p10", 1.0}, {"p50", 1.0}, {"mean", 1.0}, {"p95", 1.0}, {"p99", 1.0}, {"max", 1.0}}},
                        {"gbps", 0.008}, {"latency_us", 1.0}, {"messages_per_s", 1e6}, {"wrong", 0}};
  return {{"schema_version", "2.1"}, {"benchmark", "pt2pt"}, {"status", "complete"},
          {"context", {{"world_size", 2}, {"hosts", {"a", "b"}}, {"backend", "mpi"}}},
          {"results", {row}}, {"link_matrix", link_matrix}};
}

const nlohmann::json kMatrix = {{"hosts", {"a", "b"}},
                                {"sizes", {{{"bytes", 8}, {"time_us", {{nullptr, 1.5}, {2.5, nullptr}}}, {"gbps", {{nullptr, 0.1}, {0.2, nullptr}}}}}}};

TEST(Pt2ptReport, LinkMatrixIsReadTyped) {
  const report::Report report = report::report_from_json(pt2pt_report(kMatrix));
  EXPECT_EQ(report.kind, report::kPointToPointRows);
  const std::optional<report::LinkMatrix> link_matrix = report::link_matrix_of(report);
  ASSERT_TRUE(link_matrix);
  EXPECT_EQ(link_matrix->ranks, 2);
  ASSERT_EQ(link_matrix->sizes.size(), 1u);
  EXPECT_FALSE(link_matrix->sizes[0].time_us[0][0]);
  EXPECT_DOUBLE_EQ(*link_matrix->sizes[0].time_us[1][0], 2.5);
  ASSERT_EQ(report.rows.size(), 1u);
  EXPECT_EQ(report.rows[0].keys.at(2).second, "0->1");
}

TEST(Pt2ptReport, AMalformedMatrixIsOneSentence) {
  nlohmann::json ragged = kMatrix;
  ragged["sizes"][0]["time_us"][1] = {2.5};
  EXPECT_THROW(report::report_from_json(pt2pt_report(ragged)), report::ReportFormatError);
  nlohmann::json text_cell = kMatrix;
  text_cell["sizes"][0]["gbps"][0][1] = "fast";
  EXPECT_THROW(report::report_from_json(pt2pt_report(text_cell)), report::ReportFormatError);
}

TEST(Pt2ptReport, HeatMapDataHasARowPerRankAndNaNWhereUnmeasured) {
  const std::optional<report::LinkMatrix> link_matrix = report::link_matrix_of(report::report_from_json(pt2pt_report(kMatrix)));
  EXPECT_EQ(summarize::heat_map_data_text(*link_matrix, true), "NaN 1.5\n2.5 NaN\n");
  EXPECT_EQ(summarize::heat_map_data_text(*link_matrix, false), "NaN 0.1\n0.2 NaN\n");
  const std::string script = summarize::heat_map_script_text(*link_matrix, true, "t", "d.dat", "m.svg");
  EXPECT_NE(script.find("matrix with image"), std::string::npos);
  EXPECT_NE(script.find("set yrange [1.5:-0.5]"), std::string::npos);  // rank 0 at the top
}

}  // namespace
}  // namespace collbench
