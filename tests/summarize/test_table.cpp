// collbench table and every command on every report kind: formats, partial and malformed reports.
// (tests/summarize/summarize_test_helpers.h has what the command files share.)
#include "summarize_test_helpers.h"
#include "workloads/collectives/report/collective_rows.h"
#include "workloads/comm_init/report/comm_init_rows.h"
#include "workloads/copy/report/copy_rows.h"
#include "workloads/envcheck/report/probe_rows.h"
#include "workloads/matmul/report/gemm_rows.h"
#include "workloads/membw/report/stream_rows.h"

namespace collbench::summarize {
namespace {

TEST(Malformed, RangesAndDatesAreCheckedAsValues) {
  try {
    load_reports({data("bad/huge_world_size.json")});
    ADD_FAILURE() << "a world size of 2^40 was accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("out of range"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find("at least 1"), std::string::npos) << e.what();
  }
  EXPECT_EQ(run_cli({"table", data("bad/huge_world_size.json")}), 2);
  EXPECT_FALSE(parse_utc_time("9999-99-99T99:99:99Z").has_value());
  EXPECT_FALSE(parse_utc_time("2023-02-29T00:00:00Z").has_value());
  EXPECT_FALSE(parse_utc_time("2024-04-31T00:00:00Z").has_value());
  EXPECT_FALSE(parse_utc_time("2024-01-01T24:00:00Z").has_value());
  EXPECT_EQ(parse_utc_time("2024-02-29T00:00:00Z"), std::optional<std::int64_t>(1709164800));
  EXPECT_EQ(run_cli({"history", data("bad/impossible_date")}), 2);
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

TEST(Cli, YesNoFlagsTakeOnlyYesOrNo) {
  for (const std::string value : {"maybe", "1", "true", "YES", "no "}) {
    std::string err;
    EXPECT_EQ(run_cli({"table", data("compare/base.json"), "--summary", value}, &err), 2) << "'" << value << "'";
    EXPECT_NE(err.find("(use yes or no)"), std::string::npos) << err;
  }
  EXPECT_EQ(run_cli({"table", data("compare/base.json"), "--summary", "yes"}), 0);
  EXPECT_EQ(run_cli({"table", data("compare/base.json"), "--summary", "no"}), 0);
}

TEST(Cli, AnEmptyValueNamesItsOwnFlag) {
  // "--NAME=" is an empty value, never the next argument taken as the value (issue 64).
  const std::string out = ::testing::TempDir() + "/empty_list";
  for (const std::string flag : {"--mpi-algorithms", "--gloo-algorithms", "--nccl-algos"}) {
    std::string err;
    EXPECT_EQ(run_cli({"tune", flag + "=", "--out", out, "--np", "2", "--", "all_reduce_perf"}, &err), 2) << flag;
    EXPECT_NE(err.find(flag + " expects a list"), std::string::npos) << err;
    EXPECT_EQ(err.find("--out"), std::string::npos) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  }
  std::string err;
  EXPECT_EQ(run_cli({"table", data("compare/base.json"), "--summary="}, &err), 2);
  EXPECT_NE(err.find("(use yes or no)"), std::string::npos) << err;
  // After "--" the arguments are the benchmark's, kept as they are.
  EXPECT_EQ(run_cli({"sweep", "--out=", "--", "x", "--flag="}, &err), 2);
  EXPECT_NE(err.find("--out"), std::string::npos) << err;
}

// Every report kind, in the layouts older builds wrote (tests/data/kinds, made by make_fixtures.py).
std::string kinds(const std::string& name) { return data("../kinds/" + name); }

TEST(ReportKinds, EveryCommandReadsEveryKind) {
  const std::string dir = ::testing::TempDir();
  for (const std::string name : {"matmul_v1.json", "matmul_v2_slower.json", "membw_v1.json", "copy_v1.json", "envcheck_v1.json",
                                  "alltoallv_v2.json", "comm_init_v2.json"}) {
    for (const std::string format : {"text", "markdown", "csv", "json"}) {
      EXPECT_EQ(run_cli({"table", kinds(name), "--format", format}), 0) << name << " " << format;
    }
    EXPECT_EQ(run_cli({"table", kinds(name), "--summary", "yes"}), 0) << name;
    EXPECT_EQ(run_cli({"compare", kinds(name), kinds(name)}), 0) << name;  // one run a side: UNKNOWN, exit 0
    EXPECT_EQ(run_cli({"plot", kinds(name), "--out", dir + "/kind.svg", "--gnuplot", "/nonexistent/gnuplot"}), 0) << name;
  }
  EXPECT_EQ(run_cli({"scaling", kinds("membw_v1.json")}), 0);
  EXPECT_EQ(run_cli({"speedup", "--by", "kernel", kinds("membw_v1.json")}), 0);  // copy against triad, per array size
}

TEST(ReportKinds, AlltoallvAndCommInitAreTheirOwnKinds) {
  const auto reports = load_reports({kinds("alltoallv_v2.json"), kinds("comm_init_v2.json")});
  EXPECT_EQ(reports[0].report.kind, report::kAlltoallvRows);
  ASSERT_EQ(reports[0].report.rows.size(), 4u);  // uniform and zipf rows of one size stay apart
  EXPECT_EQ(reports[0].report.rows[2].fields.at("traffic").at("pattern"), "zipf:1.2");
  EXPECT_EQ(reports[1].report.kind, report::kCommInitRows);
  ASSERT_EQ(reports[1].report.rows.size(), 6u);
  EXPECT_EQ(reports[1].report.rows[1].size, 2u);  // comm_size is the size axis
  EXPECT_EQ(run_cli({"scaling", kinds("comm_init_v2.json")}), 0);
}

TEST(ReportKinds, OldLayoutsReadAsTheirKind) {
  const auto reports = load_reports({kinds("matmul_v1.json"), kinds("membw_v1.json"), kinds("copy_v1.json"), kinds("envcheck_v1.json")});
  EXPECT_EQ(reports[0].report.kind, report::kGemmRows);
  EXPECT_EQ(reports[1].report.kind, report::kStreamRows);
  EXPECT_EQ(reports[2].report.kind, report::kCopyRows);
  EXPECT_EQ(reports[3].report.kind, report::kProbeRows);
  EXPECT_EQ(reports[0].report.rows.at(2).size_text, "100x60x300");
  EXPECT_EQ(reports[0].report.rows.at(2).size, 100u * 60u * 300u);
  EXPECT_EQ(reports[2].report.context.world_size, 1);  // copy-1.0 had no world size
  EXPECT_DOUBLE_EQ(*reports[3].report.rows.at(1).figures.at(0), 20.0);  // probe headline: GEMM GFLOP/s
}

// Committed reports of schema 2.2 (trimmed from results/gpu/2026-11-27-h100/after-fix/verify/test):
// before 2.7 a collective's skipped case was {dtype, op, placement, reason} and every other
// kind's {what, reason}; both read in the one shape, and the summary is the kind's, from its rows.
TEST(ReportKinds, SkippedCasesOfOlderReportsReadInTheOneShape) {
  const auto reports = load_reports({kinds("alltoallv_v2_2_skipped.json"), kinds("comm_init_v2_2_skipped.json")});
  const report::Report& alltoallv = reports[0].report;
  ASSERT_EQ(alltoallv.skipped.size(), 12u);
  EXPECT_EQ(alltoallv.skipped[0].what, "int8 none in");  // its dtype, op and placement, as the table named them
  EXPECT_EQ(alltoallv.skipped[0].fields, nlohmann::json::parse(R"({"dtype": "int8", "op": "none", "placement": "in"})"));
  EXPECT_EQ(alltoallv.skipped[0].reason.rfind("alltoallv runs out of place only", 0), 0u) << alltoallv.skipped[0].reason;
  // Written again in the one shape: what and reason, the kind's own keys beside them.
  const nlohmann::json again = report::to_json(alltoallv);
  EXPECT_EQ(again["skipped"][0]["what"], "int8 none in");
  EXPECT_EQ(again["skipped"][0]["dtype"], "int8");
  EXPECT_EQ(report::report_from_json(again).skipped[1].what, alltoallv.skipped[1].what);
  const report::Report& comm_init = reports[1].report;
  ASSERT_EQ(comm_init.skipped.size(), 1u);
  EXPECT_EQ(comm_init.skipped[0].what, "ncclCommShrink of 1 rank(s)");
  EXPECT_TRUE(comm_init.skipped[0].fields.empty());
  // The summary as the run wrote it, made again from the rows in the kind's form.
  std::ifstream file(kinds("comm_init_v2_2_skipped.json"));
  EXPECT_EQ(comm_init.summary, nlohmann::json::parse(file)["summary"]);
  EXPECT_EQ(alltoallv.summary["rows"], 2);  // the fixture keeps two of its rows
  EXPECT_EQ(comm_init.kind_fields.count("startup"), 1u);  // comm_init's own key, beside the envelope
  for (const char* name : {"alltoallv_v2_2_skipped.json", "comm_init_v2_2_skipped.json"}) {
    EXPECT_EQ(run_cli({"table", kinds(name)}), 0) << name;
  }
}

// nccl-tests' table of an older collective report names each skipped case as the live table did.
TEST(ReportKinds, AnOlderCollectivesSkippedCaseIsPrintedAsBefore) {
  std::ifstream file(data("compare/base.json"));
  nlohmann::json document = nlohmann::json::parse(file);
  document["skipped"] = nlohmann::json::parse(R"([{"dtype": "float16", "op": "sum", "placement": "out", "reason": "why not"}])");
  const std::string text = nccl_table_text({LoadedReport{"base.json", report::report_from_json(document)}});
  EXPECT_NE(text.find("\n# skipped: float16 sum out placement: why not\n"), std::string::npos) << text;
  EXPECT_NE(text.find("# Avg bus bandwidth"), std::string::npos) << text;
}

TEST(ReportKinds, CompareGivesAVerdictPerShape) {
  // A 1.0 report against a 2.0 one of the same benchmark: 256^3 is 50 % slower, the rest the same.
  // One run a side measures no spread, so every verdict is UNKNOWN; the change is still there.
  const auto result = compare_reports(load_reports({kinds("matmul_v1.json")}), load_reports({kinds("matmul_v2_slower.json")}), CompareOptions{});
  ASSERT_EQ(result.lines.size(), 4u);  // three shapes and the benchmark as a whole
  EXPECT_EQ(key_value(result.lines[0].key, "shape"), "100x60x300");
  EXPECT_EQ(key_value(result.lines[1].key, "shape"), "128x128x128");
  EXPECT_EQ(key_value(result.lines[2].key, "shape"), "256x256x256");
  EXPECT_EQ(key_value(result.lines[2].key, "dtype"), "float32");
  for (const auto& line : result.lines) EXPECT_EQ(line.verdict, Verdict::kUnknown);
  EXPECT_NEAR(result.lines[0].change, 0, 1e-12);
  EXPECT_NEAR(result.lines[2].change, 0.5, 1e-12);
  EXPECT_EQ(run_cli({"compare", kinds("matmul_v1.json"), kinds("matmul_v2_slower.json")}), 0);
}

TEST(ReportKinds, ProbesCompareTheirHeadlineRate) {
  const auto reports = load_reports({kinds("envcheck_v1.json")});
  const auto result = compare_reports(reports, reports, CompareOptions{});
  ASSERT_EQ(result.lines.size(), 3u);  // two ranks and the job as a whole
  EXPECT_EQ(result.measure, "probes.gemm_gflops");
  EXPECT_EQ(result.lines[0].verdict, Verdict::kUnknown);  // one run a side
  EXPECT_NEAR(result.lines[0].change, 0, 1e-12);
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
  const std::string script = plot_script_text(series, "tflops", "t", "d.dat", "x.svg", report::row_kind_spec(report::kGemmRows));
  EXPECT_NE(script.find("TFLOP/s"), std::string::npos);
  EXPECT_EQ(script.find("%cB"), std::string::npos);  // m*n*k is not a byte count
}

}  // namespace
}  // namespace collbench::summarize
