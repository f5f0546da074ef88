// Pure pieces of the reliability work: option fingerprints, the silence limit, and the local
// watchdog's tick and timeout.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

#include "core/algorithm_ranges.h"
#include "core/error.h"
#include "core/input_file.h"
#include "harness/agreement.h"
#include "workloads/collectives/collective_options.h"
#include "harness/job_watchdog.h"
#include "harness/watchdog.h"

namespace collbench {
namespace {

std::string fingerprint_of(const std::string& program, const std::vector<std::string>& args) {
  const CollectiveOptions options = parse_options(args);
  return options_identity_text(program, nlohmann::json::object(), options);
}

TEST(OptionsFingerprint, SameMeaningSameFingerprint) {
  EXPECT_EQ(fingerprint_of("all_reduce_perf", {"-b", "8", "-e", "8"}),
            fingerprint_of("all_reduce_perf", {"-b8", "--maxbytes=8"}));
}

// The identity is made from every flag the command line gave: a flag of any group (loop, run,
// report, the program's own) that differs is caught without being listed anywhere by hand.
TEST(OptionsFingerprint, EveryGivenFlagCounts) {
  const auto base = fingerprint_of("all_reduce_perf", {"-b", "8"});
  for (const std::vector<std::string>& extra : std::vector<std::vector<std::string>>{
           {"-n", "3"}, {"-w", "0"}, {"-c", "0"}, {"--seed", "7"}, {"--samples"}, {"--inject-slowdown", "5"},
           {"--placement", "in"}, {"-d", "int8"}, {"-N", "2"}, {"--overwrite"}, {"-u", "1"}}) {
    std::vector<std::string> args{"-b", "8"};
    args.insert(args.end(), extra.begin(), extra.end());
    EXPECT_NE(base, fingerprint_of("all_reduce_perf", args)) << extra.front();
  }
}

TEST(OptionsFingerprint, DifferentSizesProgramsOrTagsDiffer) {
  const auto base = fingerprint_of("all_reduce_perf", {"-b", "8", "-e", "8"});
  EXPECT_NE(base, fingerprint_of("all_reduce_perf", {"-b", "16", "-e", "16"}));
  EXPECT_NE(base, fingerprint_of("reduce_perf", {"-b", "8", "-e", "8"}));
  EXPECT_NE(base, fingerprint_of("all_reduce_perf", {"-b", "8", "-e", "8", "--tag", "a=b"}));
  EXPECT_NE(base, fingerprint_of("all_reduce_perf", {"-b", "8", "-e", "8", "-T", "5"}));
  EXPECT_NE(base, fingerprint_of("all_reduce_perf", {"-b", "8", "-e", "8", "-M", "1"}));  // -M adds an exchange
  EXPECT_NE(base, fingerprint_of("all_reduce_perf", {"-b", "8", "-e", "8", "-m", "2"}));
}

// A file name or tag that is not UTF-8 cannot pass through JSON unchanged; the identity must still
// be made (it once threw from nlohmann's dump and aborted the compute programs) and still tell
// two such names apart.
TEST(OptionsFingerprint, NonUtf8FreeTextIsKeptApart) {
  const auto latin1 = fingerprint_of("all_reduce_perf", {"-J", "x\xe9.json", "--tag", "k=\xff"});
  EXPECT_NE(latin1, fingerprint_of("all_reduce_perf", {"-J", "x\xe8.json", "--tag", "k=\xff"}));
  EXPECT_NE(latin1, fingerprint_of("all_reduce_perf", {"-J", "x\xe9.json", "--tag", "k=\xfe"}));
}

// Windows line ends (issue 64): every text file collbench reads goes through read_input_file,
// which reads CR LF as LF; a CR that ends no line is named, with its line, in a line-oriented file.
TEST(LineEnds, CrLfIsReadAsLfInEveryTextFile) {
  const std::string path = ::testing::TempDir() + "/crlf.txt";
  std::ofstream(path, std::ios::binary) << "# Open MPI rules\r\nall_reduce 0 1023 ring\r\nall_reduce 1024 65535 recursive_doubling\r\n";
  const std::string text = read_input_file(path, {"tuning file", 1u << 20, 64u << 10});
  EXPECT_EQ(text.find('\r'), std::string::npos);
  const auto ranges = parse_algorithm_ranges(read_tuning_file_text(path), path);  // "'1023?' is not a number" before
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(ranges[1].last_bytes, 65535u);
  EXPECT_EQ(ranges[1].algorithm, "recursive_doubling");
  std::ofstream(path, std::ios::binary) << "{\"a\":\r\n 1}\r";  // JSON: a CR between values is white space
  EXPECT_EQ(read_input_file(path, {"report", 1u << 20, 1u << 20}), "{\"a\":\n 1}\r");
}

TEST(LineEnds, ALoneCarriageReturnIsNamedWithItsLine) {
  const std::string path = ::testing::TempDir() + "/cr.txt";
  std::ofstream(path, std::ios::binary) << "layer,forward_us\nlinear,1\rconv,2\n";
  try {
    read_input_file(path, {"compute profile", 1u << 20, 64u << 10});
    ADD_FAILURE() << "a lone CR was read";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("compute profile '" + path + "': line 2 holds a carriage return (CR)"), std::string::npos)
        << e.what();
  }
  std::remove(path.c_str());
}

TEST(SilenceLimit, BetweenHalfASecondAndThree) {
  EXPECT_DOUBLE_EQ(silence_limit_seconds(0.2), 0.5);
  EXPECT_DOUBLE_EQ(silence_limit_seconds(4), 2.0);
  EXPECT_DOUBLE_EQ(silence_limit_seconds(600), 3.0);
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
