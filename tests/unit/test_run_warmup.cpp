// The driver's warm-up before its first row (harness/driver.h warmup_size), on a small sized
// workload: once per run whatever -N says, at the largest case that runs and then the smallest,
// untimed and outside every row, named to the watchdog while it runs, and absent with -w 0 or for
// a kind that gives no sizes. The driver, loop, watchdog and report writer are the real ones; only
// the workload and the one-rank world are fakes (issue 49's scripted workload tests the rest).
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/driver.h"
#include "harness/report_writer.h"
#include "harness/watchdog.h"
#include "one_rank_world.h"
#include "report/report_json.h"
#include "workloads/copy/report/copy_rows.h"

namespace collbench {
namespace {

using testing::OneRankWorld;

struct SizedCase {
  double size;
  bool skipped = false;
};

// A program whose cases log what the driver did with them: "issue <size>", "row <size>",
// "done <size>" (SizedWorkload, below, is its run).
struct SizedProgram {
  SizedProgram(RunFlags flags, std::vector<SizedCase> cases, bool gives_sizes = true)
      : flags(std::move(flags)), cases(std::move(cases)), gives_sizes(gives_sizes) {}

  RunFlags flags;
  std::vector<SizedCase> cases;
  bool gives_sizes;
  std::vector<std::string> log;
  // Called by the first warm-up issue, before it returns (the watchdog test waits there).
  std::function<void()> on_first_warmup_issue;
};

class SizedWorkload final : public Workload {
 public:
  SizedWorkload(RunContext& run, SizedProgram& program)
      : Workload(run.world, program.flags, report::kCopyRows), program_(program), cases_(program.cases) {
    report_without_rows_ = report::envelope_json("sized", report::Context{});
    report_without_rows_["skipped"] = nlohmann::json::array();
  }

 private:
  void print_columns() override {}
  void print_row(const nlohmann::json&) override {}
  void print_skipped(const SkippedCase&) override {}
  void case_done(std::size_t index) override { program_.log.push_back("done " + name(index)); }
  std::size_t case_count() const override { return cases_.size(); }
  std::optional<double> warmup_size(std::size_t index) const override {
    return program_.gives_sizes ? std::optional<double>(cases_[index].size) : std::nullopt;
  }
  LoopSettings loop_settings() const override { return loop_settings_from(program_.flags, TimeAggregation::kMean); }
  CasePlan prepare(std::size_t index) override {
    if (cases_[index].skipped) return CasePlan::skip_what(name(index), "too large for this fake");
    PreparedCase prepared;
    prepared.step = "case " + name(index);
    const bool warmup = preparing_warmup();
    prepared.operation = std::make_unique<FunctionOperation>(TimingSchedule::kBarrierEachIteration, [this, index, warmup](int) {
      program_.log.push_back((warmup ? "warm " : "issue ") + name(index));
      if (warmup && program_.on_first_warmup_issue) std::exchange(program_.on_first_warmup_issue, nullptr)();
    });
    prepared.row = [this, index](LoopResult&, report::Measurement measured) {
      program_.log.push_back("row " + name(index));
      return report::row_json(report::kCopyRows, {{"mode", name(index)}, {"gbps", 1.0}}, measured);
    };
    return CasePlan::run(std::move(prepared));
  }
  std::string name(std::size_t index) const { return std::to_string(static_cast<int>(cases_[index].size)); }

  SizedProgram& program_;
  const std::vector<SizedCase>& cases_;
};

// -n 1 -w 2 -c 0 -N 2.
RunFlags two_cycles(int warmup_iterations = 2) {
  RunFlags flags;
  flags.iterations = 1;
  flags.warmup_iterations = warmup_iterations;
  flags.check_iterations = 0;
  flags.cycles = 2;
  return flags;
}

// The sweep 64, 8, 4096 (skipped), 1024, 16 on one rank; the report's rows.
nlohmann::json run(SizedProgram& program, Watchdog* watchdog = nullptr) {
  OneRankWorld world;
  ReportWriter report;
  const std::vector<std::string> argv{"test"};
  RunContext context{world, report, watchdog, argv};
  ProgramSpec spec;
  spec.flags = std::make_shared<const RunFlags>(program.flags);
  spec.start = [&program](RunContext& run) { return std::make_unique<SizedWorkload>(run, program); };
  EXPECT_EQ(measure(spec, context), 0);
  return report.snapshot();
}

std::vector<SizedCase> sweep() { return {{64}, {8}, {4096, true}, {1024}, {16}}; }

TEST(RunWarmup, OnceBeforeTheFirstRowAtTheLargestCaseThatRunsThenTheSmallest) {
  SizedProgram program(two_cycles(), sweep());
  const nlohmann::json report = run(program);
  // 4096 is skipped, so 1024 is the largest; then 8. Each gets -w iterations, untimed, with no
  // row and no case_done, before the first row's own warm-up; never again in the second cycle.
  const std::vector<std::string> first = {"warm 1024", "warm 1024", "warm 8", "warm 8", "issue 64", "issue 64", "issue 64", "row 64"};
  ASSERT_GE(program.log.size(), first.size());
  EXPECT_EQ(std::vector<std::string>(program.log.begin(), program.log.begin() + first.size()), first);
  int warm = 0, rows = 0, done = 0;
  for (const std::string& line : program.log) {
    warm += line.rfind("warm ", 0) == 0;
    rows += line.rfind("row ", 0) == 0;
    done += line.rfind("done ", 0) == 0;
  }
  EXPECT_EQ(warm, 4);
  EXPECT_EQ(rows, 2 * 4);   // two cycles of the four cases that run
  EXPECT_EQ(done, 2 * 5);   // and the skipped one, as before
  ASSERT_EQ(report["results"].size(), 8u);
  for (const auto& row : report["results"]) {
    EXPECT_NE(row["timing"].get<std::string>().find("; warm-up once before the first row, untimed (as nccl-tests): 2 iterations "
                                                    "at case 1024 (the largest case), then 2 iterations at case 8 (the smallest)"),
              std::string::npos)
        << row["timing"];
  }
  // The skipped case is recorded once, by its own turn in the sweep.
  EXPECT_EQ(report["skipped"].size(), 1u);
}

TEST(RunWarmup, NoneWithWarmupZeroAndTheRowsSaySo) {
  SizedProgram program(two_cycles(0), sweep());
  const nlohmann::json report = run(program);
  for (const std::string& line : program.log) EXPECT_NE(line.rfind("warm ", 0), 0u) << line;
  EXPECT_EQ(program.log.front(), "issue 64");
  for (const auto& row : report["results"]) {
    EXPECT_NE(row["timing"].get<std::string>().find("; no warm-up (-w 0)"), std::string::npos) << row["timing"];
  }
}

TEST(RunWarmup, AKindWithoutSizesHasNoneAndSaysNothingOfIt) {
  SizedProgram program(two_cycles(), sweep(), false);
  const nlohmann::json report = run(program);
  EXPECT_EQ(program.log.front(), "issue 64");
  for (const auto& row : report["results"]) EXPECT_EQ(row["timing"].get<std::string>().find("warm-up"), std::string::npos) << row["timing"];
}

TEST(RunWarmup, OneSizeIsWarmedUpOnce) {
  SizedProgram program(two_cycles(), {{32}, {32}});
  const nlohmann::json report = run(program);
  EXPECT_EQ(std::vector<std::string>(program.log.begin(), program.log.begin() + 3),
            (std::vector<std::string>{"warm 32", "warm 32", "issue 32"}));
  EXPECT_NE(report["results"][0]["timing"].get<std::string>().find("2 iterations at case 32 (the only size)"), std::string::npos);
}

TEST(RunWarmup, TheWatchdogNamesTheWarmupWhileItRuns) {
  // -T's watchdog hears the step on its ticks (ten a second): the first warm-up issue waits until
  // a tick has named it, so a warm-up that hangs is reported as the warm-up.
  std::mutex mutex;
  std::condition_variable named;
  std::vector<std::string> steps;
  Watchdog watchdog(600, [](const std::string&) { std::abort(); }, [&](std::uint64_t, const std::string& step) {
    std::lock_guard<std::mutex> lock(mutex);
    if (steps.empty() || steps.back() != step) steps.push_back(step);
    named.notify_all();
  });
  SizedProgram program(two_cycles(), sweep());
  bool heard = false;
  program.on_first_warmup_issue = [&] {
    std::unique_lock<std::mutex> lock(mutex);
    heard = named.wait_for(lock, std::chrono::seconds(10), [&] {
      return !steps.empty() && steps.back() == "warm-up before the first row: case 1024";
    });
  };
  run(program, &watchdog);
  EXPECT_TRUE(heard) << (steps.empty() ? "no step" : steps.back());
}

}  // namespace
}  // namespace collbench
