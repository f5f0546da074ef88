#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "harness/context.h"
#include "core/error.h"
#include "core/printable.h"
#include "report/report_file.h"
#include "report/report_json.h"
#include "temp_folder.h"
#include "workloads/collectives/report/collective_rows.h"
#include "workloads/copy/report/copy_rows.h"
#include "workloads/envcheck/report/probe_rows.h"

namespace collbench::report {
namespace {

Report sample_report() {
  Report report;
  report.benchmark = "all_reduce";
  report.status = "complete";
  report.context.argv = {"all_reduce_perf", "-b", "8"};
  report.context.start_time = "2026-11-21T00:00:00.000Z";
  report.context.end_time = "2026-11-21T00:00:01.000Z";
  report.context.world_size = 2;
  report.context.hosts = {"a"};
  report.context.ranks = {{0, "a", 0, "cpu", 10}, {1, "a", 1, "cpu", 11}};
  report.context.backend = "mpi";
  report.context.versions = {{"collbench", "0.1.0"}, {"mpi", "Open MPI v4.1.4"}};
  report.context.env = {{"NCCL_ALGO", "Ring"}};
  report.context.options = {{"iterations", 20}, {"dtypes", {"float32"}}};
  report.context.tags = {{"run", "a"}};
  // Two rows as the collectives write them: their own fields and how they were measured.
  Measurement measured;
  measured.iterations = 3;
  measured.time_aggregation = "mean";
  measured.time_us = summarize_samples({1, 2, 3});
  measured.check_iterations = 1;
  measured.wrong = 0;
  measured.samples_us = {1, 2, 3};
  const std::uint64_t bytes = 1024, count = 256;
  nlohmann::json fields = {{"bytes", bytes}, {"requested_bytes", bytes}, {"count", count}, {"dtype", "float32"}, {"op", "sum"},
                           {"root", -1}, {"placement", "out"}, {"backend", "mpi"}, {"algorithm", "default"},
                           {"algbw_gbps", 0.512}, {"bus_bandwidth_factor", 1.0}, {"busbw_gbps", 0.512}, {"bitdiff", nullptr}};
  report.rows.push_back(row_from_json(row_json(kCollectiveRows, fields, measured), kCollectiveRows));
  fields["placement"] = "in";
  fields["busbw_gbps"] = nullptr;
  measured.wrong.reset();
  measured.samples_us.clear();
  report.rows.push_back(row_from_json(row_json(kCollectiveRows, fields, measured), kCollectiveRows));
  report.skipped.push_back({"float16 sum out", "why not", {{"dtype", "float16"}, {"op", "sum"}, {"placement", "out"}}});
  return report;
}

TEST(ReportJson, RoundTripKeepsEveryField) {
  const Report original = sample_report();
  const nlohmann::json document = to_json(original);
  const Report back = report_from_json(nlohmann::json::parse(document.dump()));
  EXPECT_EQ(to_json(back), document);
  EXPECT_EQ(back.rows.size(), 2u);
  EXPECT_TRUE(back.rows[1].fields.at("busbw_gbps").is_null());
  EXPECT_FALSE(back.rows[1].wrong.has_value());
  EXPECT_EQ(back.rows[0].samples_us.size(), 3u);
  EXPECT_EQ(back.context.options["iterations"], 20);
}

TEST(ReportJson, MachineAndP10RoundTripAndOldReportsStillRead) {
  Report original = sample_report();
  original.context.machine = {{"cpu_model", "Fixture CPU"}, {"cores", 2}, {"threads", 4}, {"gpus", nlohmann::json::array()}};
  nlohmann::json first = original.rows[0].fields;
  first["time_us"]["p10"] = first["time_us"]["min"].get<double>() + 0.5;
  original.rows[0] = row_from_json(first, kCollectiveRows);
  const nlohmann::json document = to_json(original);
  ASSERT_TRUE(document["results"][0]["time_us"].contains("p10"));
  const Report back = report_from_json(nlohmann::json::parse(document.dump()));
  EXPECT_EQ(back.context.machine, original.context.machine);
  EXPECT_EQ(back.rows[0].time_statistics.at("p10"), original.rows[0].time_statistics.at("p10"));
  // A report from before the machine block and p10: read, with the minimum and no p10, which its
  // readers take the minimum for (compare's figures, and the model: test_model's
  // RowsWithoutP10AreFitOnTheirMinimum).
  nlohmann::json old = document;
  old["context"].erase("machine");
  for (auto& row : old["results"]) row["time_us"].erase("p10");
  const Report old_back = report_from_json(old);
  EXPECT_TRUE(old_back.context.machine.empty());
  EXPECT_EQ(old_back.rows[0].time_statistics.count("p10"), 0u);
  EXPECT_EQ(old_back.rows[0].time_statistics.at("min"), back.rows[0].time_statistics.at("min"));
  nlohmann::json bad = document;
  bad["context"]["machine"] = "a string";
  EXPECT_THROW(report_from_json(bad), ReportFormatError);
}

TEST(ReportJson, SchedulerBlockIsWrittenOnlyWhenPresentAndReadBack) {
  Report report = sample_report();
  EXPECT_FALSE(to_json(report)["context"].contains("scheduler"));  // reports off a scheduler, and older ones
  EXPECT_TRUE(report_from_json(to_json(report)).context.scheduler.empty());
  report.context.scheduler = {{"name", "slurm"}, {"job_id", "17"}, {"step_id", "0"}, {"job_node_list", "vm"}};
  const nlohmann::json document = to_json(report);
  EXPECT_EQ(document["context"]["scheduler"]["job_id"], "17");
  EXPECT_EQ(report_from_json(document).context.scheduler, report.context.scheduler);
  nlohmann::json bad = document;
  bad["context"]["scheduler"]["job_id"] = 17;
  EXPECT_THROW(report_from_json(bad), ReportFormatError);
}

TEST(ReportJson, StateProbeIsWrittenOnlyWhenPresentAndReadBack) {
  Report report = sample_report();
  EXPECT_FALSE(to_json(report)["context"].contains("state_probe"));  // reports before 2.3
  EXPECT_FALSE(report_from_json(to_json(report)).context.state_probe.has_value());
  StateProbeRecord probe;
  probe.host = "vm";
  probe.cpu_a = 0;
  probe.cpu_b = 1;
  probe.before_ns = 158.26;  // kept to a tenth of a ns
  report.context.state_probe = probe;
  const nlohmann::json document = to_json(report);
  const auto& written = document["context"]["state_probe"];
  EXPECT_EQ(written["cpus"], nlohmann::json::array({0, 1}));
  EXPECT_DOUBLE_EQ(written["before_ns"].get<double>(), 158.3);
  EXPECT_TRUE(written["after_ns"].is_null());  // a run that stopped before its last row
  const auto read = report_from_json(document).context.state_probe;
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->host, "vm");
  EXPECT_EQ(read->cpu_b, 1);
  EXPECT_EQ(read->values(), std::vector<double>{158.3});
  EXPECT_FALSE(read->between_cycles_ns.has_value());  // reports before 2.6
  EXPECT_FALSE(written.contains("between_cycles_ns"));
  // 2.6: the probes between cycles, in order, a null where one was not made; cycle k ran between
  // the (k-1)th and the kth of before, between and after.
  probe.between_cycles_ns = std::vector<std::optional<double>>{517.04, std::nullopt};
  probe.after_ns = 160;
  report.context.state_probe = probe;
  report.context.options["cycles"] = 3;
  const nlohmann::json with_cycles = to_json(report);
  EXPECT_EQ(with_cycles["context"]["state_probe"]["between_cycles_ns"], nlohmann::json::parse("[517.0, null]"));
  const auto cycles_read = report_from_json(with_cycles).context.state_probe;
  ASSERT_TRUE(cycles_read.has_value());
  EXPECT_EQ(cycles_read->in_order(), (std::vector<std::optional<double>>{158.3, 517.0, std::nullopt, 160.0}));
  EXPECT_EQ(cycles_read->values(), (std::vector<double>{158.3, 160.0}));  // ab's pair rule: before and after
  // Bad probes are refused with the key named, not read as "no state".
  for (const auto& [key, value] : {std::pair<const char*, nlohmann::json>{"before_ns", -3}, {"after_ns", 0}, {"after_ns", "fast"},
                                   {"between_cycles_ns", 5}, {"between_cycles_ns", nlohmann::json::array({150, 0})},
                                   {"between_cycles_ns", nlohmann::json::array({"slow"})},
                                   {"cpus", nlohmann::json::array({0, 1, 2})}, {"cpus", nlohmann::json::array({"0", 1})}, {"host", 7}}) {
    nlohmann::json bad = document;
    bad["context"]["state_probe"][key] = value;
    try {
      report_from_json(bad);
      ADD_FAILURE() << key << " = " << value.dump() << " was accepted";
    } catch (const ReportFormatError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("context.state_probe.") + key), std::string::npos) << e.what();
    }
  }
  nlohmann::json bad = document;
  bad["context"]["state_probe"] = "slow";
  EXPECT_THROW(report_from_json(bad), ReportFormatError);
}

TEST(ReportJson, ProbesBetweenCyclesMatchTheCycles) {
  // One probe between each two -N cycles (issue 64): five probes in a 3-cycle report made history
  // leave out cycles that never ran, a million made it print a 7.9 MB note.
  Report report = sample_report();
  report.status = "complete";
  StateProbeRecord probe;
  probe.before_ns = probe.after_ns = 160;
  const auto with = [&](std::size_t probes, const nlohmann::json& cycles, const std::string& status) {
    probe.between_cycles_ns = std::vector<std::optional<double>>(probes, 170.0);
    report.context.state_probe = probe;
    report.status = status;
    nlohmann::json document = to_json(report);
    if (cycles.is_null()) document["context"]["options"].erase("cycles");
    else document["context"]["options"]["cycles"] = cycles;
    return document;
  };
  EXPECT_NO_THROW(report_from_json(with(2, 3, "complete")));
  EXPECT_NO_THROW(report_from_json(with(0, 1, "complete")));
  EXPECT_NO_THROW(report_from_json(with(1, 3, "partial")));  // stopped in its second cycle
  EXPECT_NO_THROW(report_from_json(with(0, nullptr, "complete")));  // no options.cycles: the rows' last cycle (1)
  for (const auto& [probes, cycles, status] : {std::tuple<std::size_t, nlohmann::json, std::string>{5, 3, "complete"},
                                               {1, 3, "complete"}, {3, 3, "partial"}, {1000000, 3, "complete"},
                                               {99, 100, "complete"}, {1, nullptr, "complete"}}) {
    try {
      report_from_json(with(probes, cycles, status));
      ADD_FAILURE() << probes << " probes, cycles " << cycles.dump() << ", " << status << " were accepted";
    } catch (const ReportFormatError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("context.state_probe.between_cycles_ns: " + std::to_string(probes) + " probe(s)"), std::string::npos) << message;
      EXPECT_LT(message.size(), 300u) << "the message does not grow with the input";
    }
  }
}

TEST(ReportJson, TypesAreJsonTypes) {
  const nlohmann::json document = to_json(sample_report());
  EXPECT_TRUE(document["schema_version"].is_string());
  EXPECT_EQ(document["schema_version"], "2.10");
  EXPECT_EQ(document["results"][0]["kind"], "collective");
  EXPECT_TRUE(document["results"][0]["bytes"].is_number_unsigned());
  EXPECT_TRUE(document["results"][0]["time_us"]["mean"].is_number_float());
  EXPECT_TRUE(document["results"][0]["wrong"].is_number_integer());
  EXPECT_TRUE(document["results"][1]["busbw_gbps"].is_null());
  EXPECT_TRUE(document["context"]["world_size"].is_number_integer());
  EXPECT_TRUE(document["summary"]["avg_busbw_gbps"].is_number());
  EXPECT_EQ(document["summary"]["rows_checked"], 1);
}

// A kind without timings (envcheck's probe rows) goes through the one row writer too, which adds
// its kind and none of the measurement keys a timed row has.
TEST(ReportJson, AnUntimedRowHasItsKindAndNoMeasurement) {
  Measurement measured;
  measured.iterations = 7;
  const nlohmann::json row = row_json(kProbeRows, {{"rank", 1}, {"probes", {{"gemm_gflops", 2.5}}}}, measured);
  EXPECT_EQ(row, (nlohmann::json{{"kind", "probe"}, {"rank", 1}, {"probes", {{"gemm_gflops", 2.5}}}}));
  EXPECT_EQ(row_json(kCopyRows, {{"gbps", 1.0}}, measured)["iterations"], 7);
}

TEST(ReportJson, ReadsOneAndTwoAlike) {
  nlohmann::json old = to_json(sample_report());
  old["schema_version"] = "1.0";
  for (auto& row : old["results"]) row.erase("kind");
  const Report back = report_from_json(old);
  EXPECT_EQ(back.kind, kCollectiveRows);
  ASSERT_EQ(back.rows.size(), 2u);
  EXPECT_EQ(back.rows[0].size, back.rows[0].fields.at("bytes").get<std::uint64_t>());
  EXPECT_DOUBLE_EQ(*back.rows[0].time_us, back.rows[0].fields.at("time_us").at("mean").get<double>());
  EXPECT_EQ(back.rows[0].keys.size(), row_kind_spec(kCollectiveRows).key_fields.size());
}

TEST(ReportJson, RejectsMalformedReports) {
  const nlohmann::json good = to_json(sample_report());
  auto broken = [&](auto&& change) {
    nlohmann::json copy = good;
    change(copy);
    return copy;
  };
  const std::vector<nlohmann::json> bad = {
      nlohmann::json::array(),
      broken([](auto& j) { j["schema_version"] = "3.0"; }),
      broken([](auto& j) { j["results"][0].erase("kind"); }),            // 2.x rows say their kind
      broken([](auto& j) { j["results"][0]["kind"] = "quantum"; }),
      broken([](auto& j) { j["results"][1]["kind"] = "gemm"; }),         // one kind per report
      broken([](auto& j) { j["results"][0]["time_us"]["min"] = 0.0; }),  // a zero time is no measurement
      broken([](auto& j) { j["schema_version"] = 1; }),
      broken([](auto& j) { j.erase("benchmark"); }),
      broken([](auto& j) { j["status"] = "done"; }),
      broken([](auto& j) { j["results"] = "none"; }),
      broken([](auto& j) { j["results"][0]["bytes"] = "1024"; }),
      broken([](auto& j) { j["results"][0]["bytes"] = -5; }),
      broken([](auto& j) { j["results"][0]["time_us"]["mean"] = -1.0; }),
      broken([](auto& j) { j["results"][0]["time_us"].erase("p99"); }),
      broken([](auto& j) { j["results"][0]["placement"] = "sideways"; }),
      broken([](auto& j) { j["results"][0]["wrong"] = "0"; }),
      broken([](auto& j) { j["results"][0]["samples_us"] = {1, "x"}; }),
      broken([](auto& j) { j["context"]["world_size"] = 0; }),
      broken([](auto& j) { j["context"]["env"] = {{"A", 1}}; }),
      broken([](auto& j) { j.erase("context"); }),
  };
  for (const auto& document : bad) {
    EXPECT_THROW(report_from_json(document), ReportFormatError) << document.dump().substr(0, 200);
  }
}

using ReportFileTest = collbench::testing::TempFolder;

TEST_F(ReportFileTest, WritesAtomicallyAndReadsBack) {
  ReportFile file(path("r.json"), false);
  file.write(to_json(sample_report()));
  EXPECT_EQ(read_report_file(path("r.json")).rows.size(), 2u);
  for (const auto& entry : std::filesystem::directory_iterator(folder_)) {
    EXPECT_EQ(entry.path().filename(), "r.json") << "no temporary file is left behind";
  }
}

TEST_F(ReportFileTest, NeverReplacesAnExistingFileUnlessAsked) {
  std::ofstream(path("existing.json")) << "{}";
  EXPECT_THROW(ReportFile(path("existing.json"), false), UsageError);
  EXPECT_NO_THROW(ReportFile(path("existing.json"), true));
  EXPECT_THROW(ReportFile(path("missing-folder/r.json"), false), UsageError);
  EXPECT_THROW(ReportFile(folder_.string(), true), UsageError);
}

TEST_F(ReportFileTest, TheClaimIsExclusiveAndGivenBackWhenUnused) {
  {
    ReportFile first(path("r.json"), false);
    // Claimed at once, but with no empty report for a reader to find (issue 64).
    EXPECT_FALSE(std::filesystem::exists(path("r.json"))) << "nothing at the path before the first whole report";
    EXPECT_THROW(ReportFile(path("r.json"), false), UsageError) << "a second writer fails at its start";
    EXPECT_NO_THROW(ReportFile(path("other.json"), false)) << "a claim holds one name only";
  }
  EXPECT_TRUE(std::filesystem::is_empty(folder_)) << "a claim that got no report is removed";
  {
    ReportFile first(path("r.json"), false);
    first.write(to_json(sample_report()));
  }
  for (const auto& entry : std::filesystem::directory_iterator(folder_)) {
    EXPECT_EQ(entry.path().filename(), "r.json") << "the claim goes with the first write";
  }
}

TEST_F(ReportFileTest, AFileThatAppearsBeforeTheFirstWriteIsKept) {
  ReportFile file(path("r.json"), false);
  std::ofstream(path("r.json")) << "{\"theirs\": true}";  // another program, between the claim and the first write
  try {
    file.write(to_json(sample_report()));
    ADD_FAILURE() << "the other writer's file was replaced";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
  }
  std::ifstream in(path("r.json"));
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "{\"theirs\": true}");
}

TEST_F(ReportFileTest, ASecondWriterIsNoticedAtTheMomentOfWriting) {
  ReportFile file(path("r.json"), false);
  Report report = sample_report();
  report.status = "complete";
  file.write(to_json(report));
  std::filesystem::remove(path("r.json"));
  std::ofstream(path("r.json")) << "{\"theirs\": true}";  // another program put its file there
  try {
    file.write(to_json(report));
    ADD_FAILURE() << "the other writer's file was replaced";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
  }
  std::ifstream in(path("r.json"));
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "{\"theirs\": true}");
}

TEST_F(ReportFileTest, RoutineSavesAreBatchedButEndingsAreNot) {
  ReportFile file(path("r.json"), false);
  Report report = sample_report();
  report.status = "partial";
  report.rows.resize(1);
  // Rows appended in place, as harness/report_writer.h does: rebuilding the document for each of
  // 2000 saves would cost this test the square of the row count.
  nlohmann::json document = to_json(report);
  file.write(document);  // the first save always lands
  for (int row = 0; row < 2000; ++row) {
    document["results"].push_back(document["results"].front());
    file.write(document);
  }
  const auto saved_while_running = read_report_file(path("r.json")).rows.size();
  EXPECT_LT(saved_while_running, 2001u) << "not every routine save rewrote the file";
  document["error"] = "interrupted by SIGINT";
  file.write(document);
  EXPECT_EQ(read_report_file(path("r.json")).rows.size(), 2001u) << "a failing run's report has every row";
}

TEST_F(ReportFileTest, TextThatIsNotUtf8IsReplacedAndSaid) {
  ReportFile file(path("r.json"), false);
  Report report = sample_report();
  report.status = "complete";
  report.context.tags["site"] = "caf\xe9";  // Latin-1
  ASSERT_NO_THROW(file.write(to_json(report)));
  const Report back = read_report_file(path("r.json"));
  EXPECT_EQ(back.context.tags.at("site"), "caf\xef\xbf\xbd");
  ASSERT_FALSE(back.warnings.empty());
  EXPECT_NE(back.warnings.back().find("U+FFFD"), std::string::npos);
}

TEST_F(ReportFileTest, ALongNameTheFilesystemTakesIsWritten) {
  const std::string name = std::string(250, 'r') + ".json";  // 255 bytes: NAME_MAX
  ReportFile file(path(name), false);
  Report report = sample_report();
  report.status = "complete";
  EXPECT_NO_THROW(file.write(to_json(report)));
  EXPECT_EQ(read_report_file(path(name)).rows.size(), 2u);
}

TEST_F(ReportFileTest, BadFilesGiveOneClearReason) {
  std::ofstream(path("empty.json")) << "";
  std::ofstream(path("truncated.json")) << R"({"schema_version": "1.0", "benchm)";
  std::ofstream(path("nan.json")) << R"({"schema_version": "1.0", "x": NaN})";
  std::ofstream(path("deep.json")) << std::string(100, '[') << std::string(100, ']');
  for (const char* name : {"empty.json", "truncated.json", "nan.json", "deep.json", "absent.json"}) {
    try {
      read_report_file(path(name));
      ADD_FAILURE() << name << " was accepted";
    } catch (const ReportFormatError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(name), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
    }
  }
}

TEST(Environment, OnlyAllowListedVariablesAndNoSecrets) {
  std::vector<std::string> entries = {"NCCL_ALGO=Ring", "OMPI_MCA_coll_tuned_use_dynamic_rules=1", "HOME=/root",
                                      "AWS_SECRET_ACCESS_KEY=x", "NCCL_IB_AUTH_TOKEN=y", "PATH=/usr/bin",
                                      "CUDA_VISIBLE_DEVICES=0,1", "OMPI_MCA_orte_precondition_transports=abc",
                                      "UCX_TLS=tcp"};
  std::vector<char*> environment;
  for (auto& entry : entries) environment.push_back(entry.data());
  environment.push_back(nullptr);
  const auto kept = allow_listed_environment(environment.data());
  EXPECT_EQ(kept.size(), 4u);
  EXPECT_EQ(kept.count("NCCL_ALGO"), 1u);
  EXPECT_EQ(kept.count("OMPI_MCA_coll_tuned_use_dynamic_rules"), 1u);
  EXPECT_EQ(kept.count("CUDA_VISIBLE_DEVICES"), 1u);
  EXPECT_EQ(kept.count("UCX_TLS"), 1u);
}

}  // namespace
}  // namespace collbench::report

namespace collbench {
namespace {

// Text from a report or a peer must not reach the terminal as control: C0, DEL, UTF-8 C1 controls
// (U+009B is CSI to some terminals) and bytes that are not UTF-8 (a lone 0x9B is CSI to 8-bit ones).
TEST(Printable, ControlsAndInvalidBytesBecomeQuestionMarks) {
  EXPECT_EQ(printable("a\nb\x1b[2Jc\x7f"), "a?b?[2Jc?");
  EXPECT_EQ(printable("\xc2\x9b" "31m"), "?31m");
  EXPECT_EQ(printable("x\x9by"), "x?y");
  EXPECT_EQ(printable("caf\xe9"), "caf?");                  // Latin-1
  EXPECT_EQ(printable("\xc0\xaf"), "??");                    // overlong '/'
  EXPECT_EQ(printable("\xed\xa0\x80"), "???");               // a surrogate
  EXPECT_EQ(printable("\xe2\x82"), "??");                    // cut short
}

TEST(Printable, ValidTextPassesUnchanged) {
  EXPECT_EQ(printable("plain ASCII, tabs? no"), "plain ASCII, tabs? no");
  EXPECT_EQ(printable("caf\xc3\xa9 \xc2\xa0 \xe2\x82\xac \xf0\x9f\x98\x80"), "caf\xc3\xa9 \xc2\xa0 \xe2\x82\xac \xf0\x9f\x98\x80");
}

}  // namespace
}  // namespace collbench
