// comm_init_perf's pure logic (workloads/comm_init/comm_init_options.h): its options, the
// communicator sizes of a run, and the process start read from /proc/<pid>/stat.
#include <gtest/gtest.h>

#include "core/error.h"
#include "workloads/comm_init/comm_init_options.h"

namespace collbench {
namespace {

TEST(CommInitOptions, DefaultsAndSizes) {
  const CommInitOptions options = parse_comm_init_options({});
  EXPECT_EQ(options.iterations, 10);
  EXPECT_EQ(options.warmup_iterations, 1);
  EXPECT_TRUE(options.comm_sizes.empty());
  EXPECT_EQ(parse_comm_init_options({"--comm-sizes", "3,1,8"}).comm_sizes, (std::vector<int>{3, 1, 8}));
  for (const char* bad : {"0", "x", "1,,2", "1,2,", "-1", ""}) {
    EXPECT_THROW(parse_comm_init_options({"--comm-sizes", bad}), UsageError) << bad;
  }
  EXPECT_THROW(parse_comm_init_options({"-n", "0"}), UsageError);  // the shared loop group's range
}

TEST(CommInitOptions, PowersOfTwoThenTheWorld) {
  EXPECT_EQ(communicator_sizes({}, 1), (std::vector<int>{1}));
  EXPECT_EQ(communicator_sizes({}, 4), (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(communicator_sizes({}, 6), (std::vector<int>{1, 2, 4, 6}));
  EXPECT_EQ(communicator_sizes({3, 2}, 3), (std::vector<int>{3, 2}));
  try {
    communicator_sizes({2, 5}, 4);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "--comm-sizes 5 is larger than the world of 4 rank(s) (use 1..4)");
  }
}

TEST(CommInitSkips, ALibraryCallMissingEverywhereAShrinkAtTheWorldsSizeOnly) {
  CommunicatorMethod shrink{"ncclCommShrink", nullptr, "", nullptr, "must leave a rank out"};
  EXPECT_FALSE(communicator_skip(shrink, 1, 2));
  const auto at_world = communicator_skip(shrink, 2, 2);
  ASSERT_TRUE(at_world);
  EXPECT_EQ(at_world->first, "ncclCommShrink of 2 rank(s)");
  EXPECT_EQ(at_world->second, "must leave a rank out");
  EXPECT_TRUE(communicator_skip(shrink, 1, 1));  // one rank: nothing to leave out
  CommunicatorMethod missing{"ncclCommSplit", nullptr, "needs NCCL 2.18", nullptr, ""};
  for (int size : {1, 2}) {
    const auto skip = communicator_skip(missing, size, 2);
    ASSERT_TRUE(skip);
    EXPECT_EQ(skip->first, "ncclCommSplit");
    EXPECT_EQ(skip->second, "needs NCCL 2.18");
  }
  EXPECT_FALSE(communicator_skip(CommunicatorMethod{"MPI_Comm_split", nullptr, "", nullptr, ""}, 2, 2));
}

TEST(CommInitStartUp, SecondsSinceTheProcessStarted) {
  // Field 22 (start time) is 250 ticks: 2.5 s after boot at 100 Hz. The command name may hold
  // blanks and parentheses.
  std::string line = "4242 (odd) name) S";
  for (int field = 4; field <= 21; ++field) line += " " + std::to_string(field);
  line += " 250 99 98";
  EXPECT_DOUBLE_EQ(seconds_since_process_start(line, 10.0, 100), 7.5);
  EXPECT_THROW(seconds_since_process_start("4242 (x) S 1 2", 10.0, 100), Error);
  EXPECT_THROW(seconds_since_process_start("no parenthesis", 10.0, 100), Error);
}

}  // namespace
}  // namespace collbench
