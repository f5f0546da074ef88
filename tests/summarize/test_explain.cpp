// collbench explain and the expected peaks: the table's reader on good and bad entries, each
// verdict, each known reason, a missing entry, and the summary's fraction of expected.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "summarize/explain/explain.h"
#include "summarize/common/input_error.h"
#include "summarize/tables/nccl_table.h"
#include "curves.h"
#include "test_data.h"

namespace collbench::summarize {
namespace {

// Two hosts of `nics` NICs of `speed_mbit` each, one rank on each.
LoadedReport across_hosts(LoadedReport loaded, int nics, long speed_mbit, const std::string& kind = "ethernet") {
  loaded.report.context.hosts = {"node-a", "node-b"};
  loaded.report.context.ranks = {{0, "node-a", 0, "cpu", 1}, {1, "node-b", 0, "cpu", 2}};
  nlohmann::json host_nics = nlohmann::json::array();
  for (int i = 0; i < nics; ++i) host_nics.push_back({{"name", "nic" + std::to_string(i)}, {"kind", kind}, {"speed_mbit", speed_mbit}});
  loaded.report.context.machine["per_host"] = {{{"host", "node-a"}, {"ranks", {0}}, {"nics", host_nics}},
                                               {{"host", "node-b"}, {"ranks", {1}}, {"nics", host_nics}}};
  return loaded;
}

LoadedReport with_algorithm(LoadedReport loaded, const std::string& algorithm) {
  for (auto& row : loaded.report.rows) row = changed(row, [&](nlohmann::json& fields) { fields["algorithm"] = algorithm; });
  return loaded;
}

LoadedReport on_gpu_model(LoadedReport loaded, const std::string& model) {
  loaded = on_gpus(std::move(loaded));
  loaded.report.context.machine["gpus"] = {{{"model", model}}};
  loaded.report.context.backend = "nccl";
  return loaded;
}

// A rising curve whose largest sizes reach `busbw` GB/s, past every cache on_cpu names.
LoadedReport reaching(double busbw) { return curve({{8, 5, 0.001}, {1u << 20, 1000, busbw / 2}, {1u << 30, 1e6, busbw}}); }

bool has_reason(const Explanation& e, const std::string& code) {
  return std::any_of(e.reasons.begin(), e.reasons.end(), [&](const Reason& r) { return r.code == code; });
}

std::string refusal(const std::string& text) {
  ExpectedPeaks peaks = ExpectedPeaks::built_in();
  try {
    peaks.add(text, "my.peaks");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ExpectedPeaks, EveryBuiltInEntryNamesItsSource) {
  const ExpectedPeaks peaks = ExpectedPeaks::built_in();
  const auto names = peaks.link_names();
  ASSERT_GE(names.size(), 9u);
  for (const auto& name : names) {
    const LinkPeak* peak = peaks.link(name);
    EXPECT_FALSE(peak->source.empty()) << name;
    EXPECT_GT(peak->line_gbps, 0) << name;
  }
  EXPECT_DOUBLE_EQ(peaks.link("nic-200g")->line_gbps, 25);
  EXPECT_DOUBLE_EQ(*peaks.link("nic-200g")->practical_gbps, 24);
  EXPECT_NE(peaks.link("nic-200g")->source.find("nccl-tests#119"), std::string::npos);
  EXPECT_DOUBLE_EQ(*peaks.link("nvlink4")->practical_gbps, 370);
  EXPECT_FALSE(peaks.link("pcie4-x16")->practical_gbps.has_value());
  EXPECT_EQ(peaks.link("nic-800g"), nullptr);  // no source gives one: it stays out
}

TEST(ExpectedPeaks, GpuModelsPickTheirLinkByWholeWords) {
  const ExpectedPeaks peaks = ExpectedPeaks::built_in();
  EXPECT_EQ(peaks.link_of_gpu("NVIDIA H100 80GB HBM3")->name, "nvlink4");
  EXPECT_EQ(peaks.link_of_gpu("NVIDIA H200")->name, "nvlink4");
  EXPECT_EQ(peaks.link_of_gpu("NVIDIA A100-SXM4-80GB")->name, "nvlink3");
  EXPECT_EQ(peaks.link_of_gpu("NVIDIA GH200 480GB"), nullptr);  // "H200" inside another word
  EXPECT_EQ(peaks.link_of_gpu("NVIDIA H200 NVL"), nullptr);     // its line says '-'
  EXPECT_EQ(peaks.link_of_gpu("NVIDIA L4"), nullptr);
}

TEST(ExpectedPeaks, RatesParseWithTheirUnits) {
  EXPECT_DOUBLE_EQ(*parse_rate_gbps("200 Gbit/s"), 25);
  EXPECT_DOUBLE_EQ(*parse_rate_gbps("1gbit"), 0.125);  // tc's spelling, as scripts/cluster shapes
  EXPECT_DOUBLE_EQ(*parse_rate_gbps("250Mbit"), 0.03125);
  EXPECT_DOUBLE_EQ(*parse_rate_gbps("24 GB/s"), 24);
  EXPECT_DOUBLE_EQ(*parse_rate_gbps("500 MB/s"), 0.5);
  EXPECT_FALSE(parse_rate_gbps("24").has_value());
  EXPECT_FALSE(parse_rate_gbps("fast GB/s").has_value());
  EXPECT_FALSE(parse_rate_gbps("24 GB/s/s").has_value());
  EXPECT_FALSE(parse_rate_gbps("nan GB/s").has_value());
}

TEST(ExpectedPeaks, AnExpectFileReplacesAndAdds) {
  ExpectedPeaks peaks = ExpectedPeaks::built_in();
  peaks.add("# mine\r\nlink nic-200g | 200 Gbit/s | 20 GB/s | our own runs | ours\r\nlink nic-25g | 25 Gbit/s | - | the NIC's datasheet | line only\n"
            "gpu NVIDIA L4 | pcie4-x16 | L4 datasheet\n",
            "my.peaks");
  EXPECT_DOUBLE_EQ(*peaks.link("nic-200g")->practical_gbps, 20);
  EXPECT_EQ(peaks.link("nic-200g")->origin, "my.peaks, line 2");
  EXPECT_FALSE(peaks.link("nic-25g")->practical_gbps.has_value());
  EXPECT_EQ(peaks.link_of_gpu("NVIDIA L4")->name, "pcie4-x16");
}

// Issue 64: a bad entry is refused with the file and line, never read as a number.
TEST(ExpectedPeaks, BadEntriesAreRefusedWithFileAndLine) {
  EXPECT_NE(refusal("link nic-25g | 25 | - | x | y").find("my.peaks, line 1: line rate '25' is not a number with a unit"), std::string::npos);
  EXPECT_NE(refusal("\nlink a | 25 furlongs | - | x | y").find("line 2: line rate '25 furlongs'"), std::string::npos);
  EXPECT_NE(refusal("link a | -5 GB/s | - | x | y").find("is not above zero"), std::string::npos);
  EXPECT_NE(refusal("link a | 0 GB/s | - | x | y").find("is not above zero"), std::string::npos);
  EXPECT_NE(refusal("link a | 10 GB/s | 1e9 GB/s | x | y").find("bus bandwidth '1e9 GB/s' is above 100 TB/s"), std::string::npos);
  EXPECT_NE(refusal("link a | 10 GB/s | 8 GB/s | x").find("4 fields where a link line has 5"), std::string::npos);
  EXPECT_NE(refusal("link a | 10 GB/s | 8 GB/s |  | y").find("no source"), std::string::npos);
  EXPECT_NE(refusal("nic a | 10 GB/s | 8 GB/s | x | y").find("'nic' is neither 'link' nor 'gpu'"), std::string::npos);
  EXPECT_NE(refusal("gpu NVIDIA L4 | warp-drive | x").find("no link 'warp-drive'"), std::string::npos);
  EXPECT_NE(refusal("link \x1b[31mred | 1 GB/s | - | x | y\nlink b | \x1b[2J GB/s | - | x | y").find("'?[2J GB/s'"), std::string::npos);
}

TEST(Explain, OkAndLowAgainstTheGpusLink) {
  const ExpectedPeaks peaks = ExpectedPeaks::built_in();
  const Explanation ok = explain_report(on_gpu_model(reaching(350), "NVIDIA H100 80GB HBM3"), peaks, std::nullopt);
  EXPECT_EQ(ok.expectation.path, "intra-host: nvlink4");
  EXPECT_DOUBLE_EQ(*ok.expectation.expected_gbps, 370);
  EXPECT_NEAR(*ok.fraction, 350.0 / 370, 1e-9);
  EXPECT_EQ(ok.verdict, "ok");
  const Explanation low = explain_report(on_gpu_model(reaching(100), "NVIDIA H100 80GB HBM3"), peaks, std::nullopt);
  EXPECT_EQ(low.verdict, "low");
  EXPECT_NEAR(*low.fraction, 100.0 / 370, 1e-9);
}

TEST(Explain, AGpuWithoutAnEntryCannotSayAndSaysWhatIsMissing) {
  const Explanation e = explain_report(on_gpu_model(reaching(20), "NVIDIA L4"), ExpectedPeaks::built_in(), std::nullopt);
  EXPECT_EQ(e.verdict, "cannot say");
  EXPECT_FALSE(e.fraction.has_value());
  EXPECT_NE(e.expectation.missing.find("no entry for the GPU 'NVIDIA L4'"), std::string::npos) << e.expectation.missing;
}

TEST(Explain, ACpuRunIsJudgedAgainstTheMeasuredMemoryCeiling) {
  const ExpectedPeaks peaks = ExpectedPeaks::built_in();
  const Explanation unknown = explain_report(on_cpu(reaching(8)), peaks, std::nullopt);
  EXPECT_EQ(unknown.verdict, "cannot say");
  EXPECT_NE(unknown.expectation.missing.find("--ceilings"), std::string::npos);
  const MemoryCeiling ceiling{40, "membw_perf copy at 1G (m.json)"};
  const Explanation ok = explain_report(on_cpu(reaching(7)), peaks, ceiling);
  EXPECT_DOUBLE_EQ(*ok.expectation.expected_gbps, 8);  // all_reduce: a fifth of the traffic (two copies and the sum's reads and write)
  EXPECT_EQ(ok.verdict, "ok");
  EXPECT_EQ(explain_report(on_cpu(reaching(2)), peaks, ceiling).verdict, "low");
  LoadedReport sendrecv = on_cpu(reaching(9));
  sendrecv.report.benchmark = "sendrecv";
  EXPECT_DOUBLE_EQ(*explain_report(sendrecv, peaks, ceiling).expectation.expected_gbps, 10);  // a quarter: two copies
}

TEST(Explain, BetweenHostsTheNicsCountAndBusbwIsGivenPerNic) {
  const ExpectedPeaks peaks = ExpectedPeaks::built_in();
  const Explanation e = explain_report(across_hosts(reaching(90), 4, 200000), peaks, std::nullopt);
  EXPECT_EQ(e.expectation.path, "inter-host: 4 NIC(s) of 200 Gbit/s a host");
  EXPECT_DOUBLE_EQ(*e.expectation.expected_gbps, 96);
  EXPECT_DOUBLE_EQ(*e.busbw_per_nic_gbps, 22.5);
  EXPECT_EQ(e.verdict, "ok");
  EXPECT_FALSE(has_reason(e, "one_nic"));
  const Explanation missing = explain_report(across_hosts(reaching(2), 1, 25000), peaks, std::nullopt);
  EXPECT_EQ(missing.verdict, "cannot say");
  EXPECT_NE(missing.expectation.missing.find("no entry 'nic-25g'"), std::string::npos) << missing.expectation.missing;
}

// The simulated cluster: no NIC speed in sysfs, the shaped rate from --expect, a line rate only.
TEST(Explain, AnExpectedInterHostRateReplacesTheInventory) {
  ExpectedPeaks peaks = ExpectedPeaks::built_in();
  peaks.add("link inter-host | 1gbit | - | tbf rate of scripts/cluster/run.sh --rate 1gbit | the shaped link", "shaped.peaks");
  const Explanation fast = explain_report(across_hosts(reaching(0.11), 0, 0), peaks, std::nullopt);
  EXPECT_TRUE(fast.expectation.line_rate_only);
  EXPECT_DOUBLE_EQ(*fast.expectation.expected_gbps, 0.125);
  EXPECT_EQ(fast.verdict, "ok");
  EXPECT_EQ(explain_report(across_hosts(reaching(0.05), 0, 0), peaks, std::nullopt).verdict, "low");
}

TEST(Explain, ReasonsAboveTheLinkRate) {
  const ExpectedPeaks peaks = ExpectedPeaks::built_in();
  const Explanation nvls = explain_report(with_algorithm(on_gpu_model(reaching(470), "NVIDIA H100 80GB HBM3"), "NVLS/Simple"), peaks, std::nullopt);
  EXPECT_EQ(nvls.expectation.path, "intra-host: nvlink4-nvls");
  EXPECT_DOUBLE_EQ(*nvls.expectation.expected_gbps, 480);
  EXPECT_TRUE(has_reason(nvls, "nvls"));
  const Explanation tree = explain_report(with_algorithm(across_hosts(reaching(30), 1, 200000), "Tree/Simple"), peaks, std::nullopt);
  EXPECT_TRUE(has_reason(tree, "tree"));
  EXPECT_FALSE(has_reason(explain_report(across_hosts(reaching(20), 1, 200000), peaks, std::nullopt), "tree"));
  // The largest size's buffers (2x 512K a rank) fit in the 2 MiB L2.
  const Explanation cached = explain_report(on_cpu(curve({{8, 5, 0.001}, {512u << 10, 100, 5}})), peaks, MemoryCeiling{8, "m"});
  EXPECT_TRUE(has_reason(cached, "cache"));
  EXPECT_FALSE(has_reason(explain_report(on_cpu(reaching(8)), peaks, MemoryCeiling{8, "m"}), "cache"));
  EXPECT_FALSE(has_reason(explain_report(across_hosts(on_cpu(curve({{8, 5, 0.001}, {512u << 10, 100, 5}})), 1, 200000), peaks, std::nullopt), "cache"));
}

TEST(Explain, ReasonsBelowIt) {
  const ExpectedPeaks peaks = ExpectedPeaks::built_in();
  const Explanation one_nic = explain_report(across_hosts(reaching(23), 4, 200000), peaks, std::nullopt);
  EXPECT_EQ(one_nic.verdict, "low");
  EXPECT_TRUE(has_reason(one_nic, "one_nic"));
  LoadedReport fallback = on_cpu(reaching(1));
  fallback.report.context.versions["cuda_driver"] = "13.0";
  EXPECT_TRUE(has_reason(explain_report(fallback, peaks, std::nullopt), "cpu_fallback"));
  EXPECT_FALSE(has_reason(explain_report(on_cpu(reaching(1)), peaks, std::nullopt), "cpu_fallback"));
  LoadedReport tcp = across_hosts(reaching(5), 1, 200000, "infiniband");
  tcp.report.context.env["NCCL_IB_DISABLE"] = "1";
  EXPECT_TRUE(has_reason(explain_report(tcp, peaks, std::nullopt), "tcp"));
  EXPECT_FALSE(has_reason(explain_report(across_hosts(reaching(5), 1, 200000, "infiniband"), peaks, std::nullopt), "tcp"));
  LoadedReport channels = on_gpu_model(reaching(100), "NVIDIA H100 80GB HBM3");
  channels.report.context.env["NCCL_MAX_NCHANNELS"] = "2";
  const Explanation few = explain_report(channels, peaks, std::nullopt);
  EXPECT_TRUE(has_reason(few, "channels"));
  EXPECT_EQ(few.verdict, "low");
  // An alltoall cannot spread over several NICs: one NIC's figure is expected (nccl-tests#267).
  LoadedReport alltoall = across_hosts(reaching(23), 4, 200000);
  alltoall.report.benchmark = "alltoall";
  const Explanation a2a = explain_report(alltoall, peaks, std::nullopt);
  EXPECT_DOUBLE_EQ(*a2a.expectation.expected_gbps, 24);
  EXPECT_EQ(a2a.verdict, "ok");
  EXPECT_FALSE(has_reason(a2a, "one_nic"));
}

TEST(Explain, RangesComeFromTheReportsOwnFit) {
  // t = 10 us + m / (1 GB/s): latency-bound below 10 KB, bandwidth-bound above.
  std::vector<std::tuple<std::uint64_t, double, double>> points;
  for (std::uint64_t bytes = 64; bytes <= (16u << 20); bytes *= 4) points.emplace_back(bytes, 10 + bytes / 1e3, bytes / (10 + bytes / 1e3) / 1e3);
  LoadedReport loaded = curve(points);
  for (auto& row : loaded.report.rows) {
    row = changed(row, [&](nlohmann::json& fields) {
      for (const char* name : {"min", "p10", "max"}) fields["time_us"][name] = fields["time_us"]["mean"];
    });
  }
  const Explanation e = explain_report(loaded, ExpectedPeaks::built_in(), std::nullopt);
  ASSERT_FALSE(e.ranges.empty()) << e.fit_note;
  const SizeRange& range = e.ranges.front();
  EXPECT_EQ(range.bound, "latency, then bandwidth");
  EXPECT_NEAR(range.alpha_us, 10, 0.5);
  EXPECT_NEAR(range.beta_gbps, 1, 0.05);
  EXPECT_NEAR(static_cast<double>(*range.crossover_bytes), 10000, 1000);
  EXPECT_FALSE(has_reason(e, "small"));  // 16M: 16 ms of bandwidth term against 10 us
  // Swept only to 4K: the largest size is still latency-bound, and busbw there says little.
  points.resize(4);
  LoadedReport short_sweep = curve(points);
  for (auto& row : short_sweep.report.rows) {
    row = changed(row, [&](nlohmann::json& fields) {
      for (const char* name : {"min", "p10", "max"}) fields["time_us"][name] = fields["time_us"]["mean"];
    });
  }
  EXPECT_TRUE(has_reason(explain_report(short_sweep, ExpectedPeaks::built_in(), std::nullopt), "small"));
  const Explanation one_size = explain_report(curve({{1024, 10, 0.1}}), ExpectedPeaks::built_in(), std::nullopt);
  EXPECT_TRUE(one_size.ranges.empty());
  EXPECT_NE(one_size.fit_note.find("no alpha-beta fit"), std::string::npos);
}

TEST(Explain, TheSummaryShowsTheFractionAndChecksALowCollective) {
  const ExpectedPeaks peaks = ExpectedPeaks::built_in();
  const std::vector<LoadedReport> reports = {on_gpu_model(reaching(350), "NVIDIA H100 80GB HBM3"), on_gpu_model(reaching(100), "NVIDIA H100 80GB HBM3")};
  Document summary = report_summary_document(reports);
  add_expected_to_summary(summary, reports, peaks, std::nullopt);
  const Table& table = summary.tables.front();
  const auto at = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find_if(table.columns.begin(), table.columns.end(), [&](const Column& c) { return c.name == name; }) -
                                    table.columns.begin());
  };
  ASSERT_EQ(at("of_expected"), at("max_busbw_gbps") + 1);
  const auto& rows = table.groups.front().rows;
  EXPECT_EQ(rows[0][at("of_expected")], "95 %");
  EXPECT_EQ(rows[0][at("health")], "ok");
  EXPECT_EQ(rows[1][at("of_expected")], "27 %");
  EXPECT_EQ(rows[1][at("health")].get<std::string>().rfind("check: busbw 27 % of the expected 370 GB/s (intra-host: nvlink4)", 0), 0u) << rows[1][at("health")];
}

// Within a host on CPUs the figure is a bound from the memory ceiling: below it the health notes
// it and stays as it was (no check: on every clean run), while explain still says low.
TEST(Explain, BelowTheHostMemoryBoundTheHealthNotesItWithoutCheck) {
  const ExpectedPeaks peaks = ExpectedPeaks::built_in();
  const MemoryCeiling ceiling{40, "membw_perf copy at 1G (m.json)"};
  const std::vector<LoadedReport> reports = {on_cpu(reaching(2))};
  EXPECT_EQ(explain_report(reports[0], peaks, ceiling).verdict, "low");
  Document summary = report_summary_document(reports);
  add_expected_to_summary(summary, reports, peaks, ceiling);
  const Table& table = summary.tables.front();
  const auto health = static_cast<std::size_t>(std::find_if(table.columns.begin(), table.columns.end(), [](const Column& c) { return c.name == "health"; }) -
                                               table.columns.begin());
  const std::string text = table.groups.front().rows[0][health].get<std::string>();
  EXPECT_EQ(text.find("check:"), std::string::npos) << text;
  EXPECT_NE(text.find("(note: busbw 25 % of the intra-host: host memory bound 8 GB/s"), std::string::npos) << text;
}

TEST(Explain, TheMemoryCeilingComesFromMembwCopyOrEnvcheckReports) {
  const std::string kinds = data("../kinds/");
  const auto membw = memory_ceiling_of(load_reports({kinds + "membw_v1.json"}));
  ASSERT_TRUE(membw.has_value());
  EXPECT_NE(membw->what.find("membw_perf copy"), std::string::npos);
  const auto copy = memory_ceiling_of(load_reports({kinds + "copy_v1.json"}));
  ASSERT_TRUE(copy.has_value());
  EXPECT_NE(copy->what.find("doubled"), std::string::npos);
  EXPECT_FALSE(memory_ceiling_of({reaching(1)}).has_value());
  EXPECT_THROW(explain_report(load_reports({kinds + "matmul_v1.json"}).front(), ExpectedPeaks::built_in(), std::nullopt), InputError);
}

}  // namespace
}  // namespace collbench::summarize
