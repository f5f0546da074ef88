// The driver's contract (harness/driver.h) on a scripted workload: the sweep in order and -N
// cycles, a skip agreed by every rank and recorded once, a case that vanishes, a null row, exit 3
// on wrong elements, and a report that keeps its completed rows as "partial" when a case fails.
// The driver, the measurement loop and the report writer are the real ones; only the workload and
// the world are fakes. The skip agreement runs in a real two-rank world of two threads, so the test
// holds whatever the ranks exchange to agree.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "harness/driver.h"
#include "harness/report_writer.h"
#include "one_rank_world.h"
#include "report/report_json.h"
#include "temp_folder.h"
#include "workloads/copy/report/copy_rows.h"

namespace collbench {
namespace {

using testing::OneRankWorld;

// What one scripted case does on one rank.
enum class Script {
  kRun,         // timed, checked, one row
  kSkip,        // this rank cannot run it (the reason names the rank)
  kVanish,      // no case at all: rounding made it the case before
  kNoRow,       // timed and checked, but its row is null, as envcheck's per-rank rows
  kFailTiming,  // the library fails while the case is timed
};

struct ScriptedCase {
  std::string name;
  Script script = Script::kRun;
  std::int64_t wrong_per_check = 0;  // what every check iteration counts
};

// A program whose cases do what their script says, and which records what the driver asked of its
// run (ScriptedWorkload, below).
struct ScriptedProgram {
  ScriptedProgram(RunFlags flags, std::vector<ScriptedCase> cases) : flags(std::move(flags)), cases(std::move(cases)) {}

  RunFlags flags;
  std::vector<ScriptedCase> cases;
  // The hooks the driver called, in order: "header", "columns", "prepare a", "row a",
  // "skipped a: reason", "done a".
  std::vector<std::string> events;
  std::vector<int> issued;  // per case, the iterations issued (warm-up, timed, checks) over every cycle
  int finish_code = 0;      // what finish() returns
  std::optional<std::int64_t> wrong_given_to_finish;
  int runs_released = 0;  // runs the driver dropped
};

// One run of a ScriptedProgram; what it is asked goes into the program, which outlives it.
class ScriptedWorkload final : public Workload {
 public:
  ScriptedWorkload(RunContext& run, ScriptedProgram& program)
      : Workload(run.world, program.flags, report::kCopyRows), program_(program), cases_(program.cases) {
    program_.issued.assign(cases_.size(), 0);
    report_without_rows_ = report::envelope_json("scripted", report::Context{});
    report_without_rows_["skipped"] = nlohmann::json::array();  // asks the driver to record skips
  }
  ~ScriptedWorkload() override { ++program_.runs_released; }

 private:
  std::string header(const nlohmann::json&) const override {
    program_.events.push_back("header");
    return "# scripted header\n";
  }
  std::string footer(const nlohmann::json& report, std::int64_t, const std::string& report_path) const override {
    return std::string(report.value("finished", false) ? "# scripted footer after finish\n" : "# scripted footer\n") +
           report_line(report_path);
  }
  void print_columns() override { program_.events.push_back("columns"); }
  void print_row(const nlohmann::json& row) override { program_.events.push_back("row " + row.at("mode").get<std::string>()); }
  void print_skipped(const SkippedCase& skipped) override { program_.events.push_back("skipped " + skipped.text()); }
  void case_done(std::size_t index) override { program_.events.push_back("done " + cases_[index].name); }
  std::size_t case_count() const override { return cases_.size(); }
  LoopSettings loop_settings() const override { return loop_settings_from(program_.flags, TimeAggregation::kMean); }

  CasePlan prepare(std::size_t index) override {
    const ScriptedCase& scripted = cases_[index];
    program_.events.push_back("prepare " + scripted.name);
    if (scripted.script == Script::kVanish) return CasePlan::none();
    if (scripted.script == Script::kSkip) {
      return CasePlan::skip_what(scripted.name, "not on rank " + std::to_string(world_.rank()));
    }
    PreparedCase prepared;
    prepared.step = scripted.name;
    const bool fails = scripted.script == Script::kFailTiming;
    prepared.operation = std::make_unique<FunctionOperation>(TimingSchedule::kBarrierEachIteration, [this, index, fails](int) {
      if (fails) throw Error("the scripted library failed");
      ++program_.issued[index];
    });
    prepared.check = RowCheck{[](int) {}, [wrong = scripted.wrong_per_check](int) { return wrong; }};
    prepared.row = [name = scripted.name, null_row = scripted.script == Script::kNoRow](LoopResult&, report::Measurement measured) {
      if (null_row) return nlohmann::json();
      return report::row_json(report::kCopyRows, {{"mode", name}, {"gbps", 1.0}}, measured);
    };
    return CasePlan::run(std::move(prepared));
  }

  int finish(RunContext&, nlohmann::json& report, std::int64_t wrong_total) override {
    program_.wrong_given_to_finish = wrong_total;
    report["finished"] = true;
    return program_.finish_code;
  }

  ScriptedProgram& program_;
  const std::vector<ScriptedCase>& cases_;
};

// -n 3 -w 1 -c 2, and -N as given.
RunFlags loop_flags(int cycles = 1) {
  RunFlags flags;
  flags.iterations = 3;
  flags.warmup_iterations = 1;
  flags.check_iterations = 2;
  flags.cycles = cycles;
  return flags;
}

int measure(ScriptedProgram& program, World& world, ReportWriter& writer) {
  const std::vector<std::string> argv = {"scripted_perf"};
  RunContext run{world, writer, nullptr, argv};
  ProgramSpec spec;
  spec.flags = std::make_shared<const RunFlags>(program.flags);
  spec.start = [&program](RunContext& run) { return std::make_unique<ScriptedWorkload>(run, program); };
  return collbench::measure(spec, run);
}

// "mode" of each row in the report, in order.
std::vector<std::string> row_names(const nlohmann::json& report) {
  std::vector<std::string> names;
  for (const auto& row : report.at("results")) names.push_back(row.at("mode"));
  return names;
}

using Events = std::vector<std::string>;

TEST(Driver, PrintsTheWorkloadsHeaderFirstAndItsFooterAfterFinishLast) {
  OneRankWorld world;
  ReportWriter writer;
  ScriptedProgram program(loop_flags(), {{"a"}});
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(measure(program, world, writer), 0);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(out.rfind("# scripted header\n", 0), 0u) << out;
  const std::string footer = "# scripted footer after finish\n";
  ASSERT_GE(out.size(), footer.size()) << out;
  EXPECT_EQ(out.substr(out.size() - footer.size()), footer) << "the footer, from the report as finish() left it, ends the output";
  EXPECT_EQ(report_line(""), "") << "no report, no line";
  EXPECT_EQ(report_line("run.json"), "# report: run.json\n");
}

TEST(Driver, RunsEveryCaseInOrderAndWritesItsRowAsMeasured) {
  OneRankWorld world;
  ReportWriter writer;
  ScriptedProgram program(loop_flags(), {{"a"}, {"b"}});
  EXPECT_EQ(measure(program, world, writer), 0);
  EXPECT_EQ(program.events, (Events{"header", "columns", "prepare a", "row a", "done a", "prepare b", "row b", "done b"}));
  EXPECT_EQ(program.issued, (std::vector<int>{1 + 3 + 2, 1 + 3 + 2})) << "warm-up, timed iterations and checks";
  const nlohmann::json report = writer.snapshot();
  EXPECT_EQ(report["status"], "partial") << "the shell, not the driver, marks a report complete";
  EXPECT_EQ(report["finished"], true) << "finish() adds its fields to the report the writer holds";
  ASSERT_EQ(row_names(report), (std::vector<std::string>{"a", "b"}));
  const nlohmann::json& row = report["results"][0];
  EXPECT_EQ(row["kind"], "copy");
  EXPECT_EQ(row["cycle"], 1);
  EXPECT_EQ(row["iterations"], 3);
  EXPECT_EQ(row["warmup_iterations"], 1);
  EXPECT_EQ(row["check_iterations"], 2);
  EXPECT_EQ(row["wrong"], 0);
  EXPECT_EQ(row["time_aggregation"], "mean");
  EXPECT_EQ(report["summary"]["rows"], 2);
  EXPECT_EQ(report["summary"]["rows_checked"], 2);
  EXPECT_EQ(program.wrong_given_to_finish, 0);
  EXPECT_EQ(program.runs_released, 1);
}

TEST(Driver, CyclesRepeatTheWholeSweepAndNumberTheirRows) {
  OneRankWorld world;
  ReportWriter writer;
  RunFlags flags = loop_flags(3);
  ScriptedProgram program(flags, {{"a"}, {"b"}});
  EXPECT_EQ(measure(program, world, writer), 0);
  const nlohmann::json report = writer.snapshot();
  EXPECT_EQ(row_names(report), (std::vector<std::string>{"a", "b", "a", "b", "a", "b"})) << "cycles outermost";
  std::vector<int> cycles;
  for (const auto& row : report["results"]) cycles.push_back(row["cycle"]);
  EXPECT_EQ(cycles, (std::vector<int>{1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(program.issued, (std::vector<int>{3 * 6, 3 * 6})) << "each case prepared and timed once a cycle";
  EXPECT_EQ(report["summary"]["rows"], 6);
}

TEST(Driver, ASkipIsRecordedAndShownOnceWhateverTheCycles) {
  OneRankWorld world;
  ReportWriter writer;
  ScriptedProgram program(loop_flags(2), {{"a"}, {"b", Script::kSkip}});
  EXPECT_EQ(measure(program, world, writer), 0);
  EXPECT_EQ(program.events, (Events{"header", "columns", "prepare a", "row a", "done a", "prepare b",
                                     "skipped b: not on rank 0", "done b", "prepare a", "row a", "done a",
                                     "prepare b", "done b"}));
  const nlohmann::json report = writer.snapshot();
  EXPECT_EQ(report["skipped"], nlohmann::json::parse(R"([{"what": "b", "reason": "not on rank 0"}])"));
  EXPECT_EQ(row_names(report), (std::vector<std::string>{"a", "a"}));
}

TEST(Driver, AVanishedCaseIsNeitherRowNorSkip) {
  OneRankWorld world;
  ReportWriter writer;
  ScriptedProgram program(loop_flags(), {{"a"}, {"b", Script::kVanish}, {"c"}});
  EXPECT_EQ(measure(program, world, writer), 0);
  EXPECT_EQ(program.events, (Events{"header", "columns", "prepare a", "row a", "done a", "prepare b", "done b",
                                     "prepare c", "row c", "done c"}));
  const nlohmann::json report = writer.snapshot();
  EXPECT_EQ(row_names(report), (std::vector<std::string>{"a", "c"}));
  EXPECT_TRUE(report["skipped"].empty());
  EXPECT_EQ(program.issued[1], 0);
}

TEST(Driver, ANullRowIsTimedAndCheckedButNeitherWrittenNorShownNorSummed) {
  OneRankWorld world;
  ReportWriter writer;
  ScriptedProgram program(loop_flags(), {{"a"}, {"b", Script::kNoRow, 1}});
  EXPECT_EQ(measure(program, world, writer), static_cast<int>(ExitCode::kWrongResults))
      << "its wrong elements still count";
  EXPECT_EQ(program.events, (Events{"header", "columns", "prepare a", "row a", "done a", "prepare b", "done b"}));
  EXPECT_EQ(program.issued[1], 1 + 3 + 2);
  const nlohmann::json report = writer.snapshot();
  EXPECT_EQ(row_names(report), (std::vector<std::string>{"a"}));
  EXPECT_EQ(report["summary"]["rows"], 1);
  EXPECT_EQ(program.wrong_given_to_finish, 2);
}

TEST(Driver, WrongElementsExitThreeWhateverFinishSays) {
  for (const int finish_code : {0, 1}) {
    OneRankWorld world;
    ReportWriter writer;
    ScriptedProgram program(loop_flags(), {{"a"}, {"b", Script::kRun, 5}, {"c"}});
    program.finish_code = finish_code;
    EXPECT_EQ(measure(program, world, writer), static_cast<int>(ExitCode::kWrongResults)) << "finish: " << finish_code;
    const nlohmann::json report = writer.snapshot();
    ASSERT_EQ(row_names(report), (std::vector<std::string>{"a", "b", "c"})) << "the sweep goes on after wrong results";
    EXPECT_EQ(report["results"][1]["wrong"], 2 * 5) << "summed over the check iterations";
    EXPECT_EQ(report["summary"]["wrong_total"], 10);
    EXPECT_EQ(program.wrong_given_to_finish, 10);
  }
}

TEST(Driver, WithoutWrongElementsFinishGivesTheExitCode) {
  OneRankWorld world;
  ReportWriter writer;
  ScriptedProgram program(loop_flags(), {{"a"}});
  program.finish_code = static_cast<int>(ExitCode::kRuntimeError);  // a gate such as --min-busbw
  EXPECT_EQ(measure(program, world, writer), 1);
}

TEST(Driver, WithoutChecksTheRowSaysNothingWasChecked) {
  OneRankWorld world;
  ReportWriter writer;
  RunFlags flags = loop_flags();
  flags.check_iterations = 0;
  ScriptedProgram program(flags, {{"a", Script::kRun, 5}});
  EXPECT_EQ(measure(program, world, writer), 0) << "no check ran, so nothing was found wrong";
  const nlohmann::json row = writer.snapshot()["results"][0];
  EXPECT_TRUE(row["wrong"].is_null());
  EXPECT_EQ(row["check_iterations"], 0);
  EXPECT_EQ(program.issued[0], 1 + 3);
}

using DriverReport = testing::TempFolder;

// The shell's way out of a failed measure(): record the error, which writes the report at once.
std::string measure_until_it_fails(ScriptedProgram& program, World& world, ReportWriter& writer) {
  try {
    measure(program, world, writer);
  } catch (const Error& e) {
    writer.record_error(e.what());
    return e.what();
  }
  return "";
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

TEST_F(DriverReport, AFailedCaseLeavesAPartialReportWithEveryCompletedRow) {
  OneRankWorld world;
  ReportWriter writer;
  writer.open(path("r.json"), false);
  ScriptedProgram program(loop_flags(), {{"a"}, {"b"}, {"c", Script::kFailTiming}, {"d"}});
  EXPECT_EQ(measure_until_it_fails(program, world, writer), "the scripted library failed");
  EXPECT_EQ(program.runs_released, 1) << "the run, and the libraries it holds, is dropped however measure() leaves";
  const nlohmann::json report = read_json(path("r.json"));
  EXPECT_EQ(report["status"], "partial");
  EXPECT_EQ(report["error"], "the scripted library failed");
  EXPECT_EQ(row_names(report), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(report["summary"]["rows"], 2);
  EXPECT_FALSE(report.contains("finished")) << "finish() never ran";
}

TEST_F(DriverReport, AFailureInTheFirstCaseStillLeavesAReport) {
  OneRankWorld world;
  ReportWriter writer;
  writer.open(path("r.json"), false);
  ScriptedProgram program(loop_flags(), {{"a", Script::kFailTiming}});
  EXPECT_FALSE(measure_until_it_fails(program, world, writer).empty());
  const nlohmann::json report = read_json(path("r.json"));
  EXPECT_EQ(report["benchmark"], "scripted");
  EXPECT_EQ(report["status"], "partial");
  EXPECT_TRUE(report["results"].empty());
}

// Two ranks in one process, one thread each: every collective is an exchange of each rank's text
// through one shared slot. A rank left waiting fails instead of hanging, so a driver whose ranks
// drift apart fails the test.
class ThreadPair {
 public:
  std::vector<std::string> exchange(int rank, const std::string& mine) {
    std::unique_lock<std::mutex> lock(mutex_);
    const long round = round_;
    posted_[rank] = mine;
    if (++arrived_ == 2) {
      exchanged_ = posted_;
      arrived_ = 0;
      ++round_;
      turned_.notify_all();
    } else if (!turned_.wait_for(lock, std::chrono::seconds(20), [&] { return round_ != round; })) {
      throw Error("rank " + std::to_string(rank) + " waited for the other rank in vain");
    }
    return exchanged_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable turned_;
  std::vector<std::string> posted_ = std::vector<std::string>(2);
  std::vector<std::string> exchanged_;
  int arrived_ = 0;
  long round_ = 0;
};

class ThreadPairWorld final : public OneRankWorld {
 public:
  ThreadPairWorld(ThreadPair& pair, int rank) : pair_(pair), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return 2; }
  int local_rank() const override { return rank_; }
  void barrier() override { pair_.exchange(rank_, ""); }
  void combine(std::vector<double>& values, Combine how) override {
    const std::vector<std::string> both = pair_.exchange(rank_, nlohmann::json(values).dump());
    const std::vector<double> other = nlohmann::json::parse(both[1 - rank_]);
    for (std::size_t i = 0; i < values.size(); ++i) {
      values[i] = how == Combine::kSum   ? values[i] + other.at(i)
                  : how == Combine::kMax ? std::max(values[i], other.at(i))
                                         : std::min(values[i], other.at(i));
    }
  }
  std::int64_t sum(std::int64_t value) override {
    const std::vector<std::string> both = pair_.exchange(rank_, std::to_string(value));
    return std::stoll(both[0]) + std::stoll(both[1]);
  }
  std::vector<std::string> gather_strings(const std::string& mine) override { return pair_.exchange(rank_, mine); }
  std::string broadcast_string(const std::string& from_rank_zero) override { return pair_.exchange(rank_, from_rank_zero)[0]; }

 private:
  ThreadPair& pair_;
  int rank_;
};

TEST(Driver, ACaseOneRankSkipsIsSkippedOnEveryRankWithTheFirstRanksReason) {
  // Rank 1 cannot run b; neither rank can run c, and rank 0's reason is the one given.
  const std::vector<std::vector<ScriptedCase>> scripts = {
      {{"a"}, {"b"}, {"c", Script::kSkip}, {"d"}},
      {{"a"}, {"b", Script::kSkip}, {"c", Script::kSkip}, {"d"}},
  };
  ThreadPair pair;
  std::vector<std::unique_ptr<ScriptedProgram>> programs;
  std::vector<ReportWriter> writers(2);
  std::vector<int> exit_codes(2, -1);
  std::vector<std::string> errors(2);
  std::vector<std::thread> ranks;
  for (int rank = 0; rank < 2; ++rank) programs.push_back(std::make_unique<ScriptedProgram>(loop_flags(), scripts[rank]));
  for (int rank = 0; rank < 2; ++rank) {
    ranks.emplace_back([&, rank] {
      ThreadPairWorld world(pair, rank);
      try {
        exit_codes[rank] = measure(*programs[rank], world, writers[rank]);
      } catch (const std::exception& e) {
        errors[rank] = e.what();
      }
    });
  }
  for (std::thread& rank : ranks) rank.join();
  ASSERT_EQ(errors, (std::vector<std::string>{"", ""}));
  EXPECT_EQ(exit_codes, (std::vector<int>{0, 0}));
  for (int rank = 0; rank < 2; ++rank) {
    EXPECT_EQ(programs[rank]->issued, (std::vector<int>{6, 0, 0, 6})) << "rank " << rank << " timed only a and d";
  }
  EXPECT_EQ(programs[0]->events, (Events{"header", "columns", "prepare a", "row a", "done a", "prepare b",
                                          "skipped b: not on rank 1", "done b", "prepare c", "skipped c: not on rank 0",
                                          "done c", "prepare d", "row d", "done d"}));
  EXPECT_EQ(programs[1]->events, (Events{"prepare a", "done a", "prepare b", "done b", "prepare c", "done c",
                                          "prepare d", "done d"}))
      << "only rank 0 prints";
  const nlohmann::json report = writers[0].snapshot();
  EXPECT_EQ(row_names(report), (std::vector<std::string>{"a", "d"}));
  EXPECT_EQ(report["skipped"], nlohmann::json::parse(R"([{"what": "b", "reason": "not on rank 1"},
                                                         {"what": "c", "reason": "not on rank 0"}])"));
}

}  // namespace
}  // namespace collbench
