// Pure pieces of the reliability work: option fingerprints, the report amendment made on a
// timeout, the silence limit, and the local watchdog's tick and timeout.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "harness/agreement.h"
#include "harness/job_watchdog.h"
#include "harness/watchdog.h"

namespace collbench {
namespace {

std::uint64_t fingerprint_of(const std::string& program, const std::vector<std::string>& args) {
  return options_fingerprint(program, parse_options(args));
}

TEST(OptionsFingerprint, SameMeaningSameFingerprint) {
  EXPECT_EQ(fingerprint_of("all_reduce_perf", {"-b", "8", "-e", "8"}),
            fingerprint_of("all_reduce_perf", {"-b8", "--maxbytes=8"}));
}

TEST(OptionsFingerprint, DifferentSizesProgramsOrTagsDiffer) {
  const auto base = fingerprint_of("all_reduce_perf", {"-b", "8", "-e", "8"});
  EXPECT_NE(base, fingerprint_of("all_reduce_perf", {"-b", "16", "-e", "16"}));
  EXPECT_NE(base, fingerprint_of("reduce_perf", {"-b", "8", "-e", "8"}));
  EXPECT_NE(base, fingerprint_of("all_reduce_perf", {"-b", "8", "-e", "8", "--tag", "a=b"}));
  EXPECT_NE(base, fingerprint_of("all_reduce_perf", {"-b", "8", "-e", "8", "-T", "5"}));
}

TEST(SilenceLimit, BetweenHalfASecondAndThree) {
  EXPECT_DOUBLE_EQ(silence_limit_seconds(0.2), 0.5);
  EXPECT_DOUBLE_EQ(silence_limit_seconds(4), 2.0);
  EXPECT_DOUBLE_EQ(silence_limit_seconds(600), 3.0);
}

class ReportAmendment : public ::testing::Test {
 protected:
  void TearDown() override { std::remove(path_.c_str()); }
  void write(const nlohmann::json& report) { std::ofstream(path_) << report.dump(); }
  nlohmann::json read() { return nlohmann::json::parse(std::ifstream(path_)); }
  // One file per test and process: ctest runs these tests as parallel processes.
  std::string path_ = ::testing::TempDir() + "amend_report_" +
                      ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" +
                      std::to_string(::getpid()) + ".json";
};

TEST_F(ReportAmendment, PartialReportGetsTheErrorAndKeepsRows) {
  write({{"status", "partial"}, {"results", {{{"bytes", 8}}, {{"bytes", 16}}}}, {"context", {{"end_time", ""}}}});
  record_error_in_report(path_, "timeout: rank 2 did not arrive");
  const auto report = read();
  ASSERT_TRUE(report.contains("error"));
  EXPECT_EQ(report.at("error"), "timeout: rank 2 did not arrive");
  EXPECT_EQ(report.at("status"), "partial");
  EXPECT_EQ(report.at("results").size(), 2u);
  EXPECT_NE(report.at("context").at("end_time"), "");
}

TEST_F(ReportAmendment, CompleteReportIsLeftAlone) {
  write({{"status", "complete"}, {"results", nlohmann::json::array()}});
  record_error_in_report(path_, "late timeout");
  EXPECT_FALSE(read().contains("error"));
}

TEST_F(ReportAmendment, MissingOrBrokenFilesAreNoProblem) {
  record_error_in_report(path_ + ".absent", "x");
  record_error_in_report("", "x");
  std::ofstream(path_) << "{ not json";
  record_error_in_report(path_, "x");
  std::ifstream in(path_);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "{ not json");
}

TEST(Watchdog, TicksWhileProgressing) {
  std::atomic<int> ticks{0};
  std::atomic<bool> fired{false};
  {
    Watchdog watchdog(10, [&](const std::string&) { fired = true; },
                      [&](std::uint64_t, const std::string&) { ++ticks; });
    for (int i = 0; i < 5; ++i) {
      watchdog.progress();
      std::this_thread::sleep_for(std::chrono::milliseconds(Watchdog::kTickMilliseconds));
    }
  }
  EXPECT_GE(ticks.load(), 1);
  EXPECT_FALSE(fired.load());
}

TEST(Watchdog, FiresWithTheStuckStep) {
  std::string stuck;
  std::atomic<bool> fired{false};
  // The handler must end the process in production; here it only records, and the watchdog's
  // thread returns after calling it, so the destructor can join.
  Watchdog watchdog(0.3, [&](const std::string& step) {
    stuck = step;
    fired = true;
  });
  watchdog.enter("all_reduce at 8 B float32 out-of-place");
  for (int i = 0; i < 50 && !fired; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(fired.load());
  EXPECT_EQ(stuck, "all_reduce at 8 B float32 out-of-place");
}

}  // namespace
}  // namespace collbench
