// The parser of NCCL's tuning debug lines, on lines in the format NCCL 2.28 writes
// (src/enqueue.cc: "%s: %ld Bytes -> Algo %s proto %s channel{Lo..Hi}={%d..%d}", comm rank 0 only).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "backends/nccl/tuning_log.h"

namespace collbench::nccl {
namespace {

constexpr const char* kAllReduceLine =
    "gpu-node-17:2049117:2049117 [0] NCCL INFO AllReduce: 4194304 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..31}";

TEST(NcclTuningLog, ParsesATuningLine) {
  const auto choice = parse_tuning_line(kAllReduceLine);
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(choice->function, "AllReduce");
  EXPECT_EQ(choice->bytes, 4194304u);
  EXPECT_EQ(choice->algorithm, "RING");
  EXPECT_EQ(choice->protocol, "SIMPLE");
}

TEST(NcclTuningLog, ParsesEveryAlgorithmNameAndOlderSuffixes) {
  const auto nvls = parse_tuning_line("h:1:2 [3] NCCL INFO ReduceScatter: 8 Bytes -> Algo NVLS_TREE proto LL128 channel{Lo..Hi}={0..0}");
  ASSERT_TRUE(nvls.has_value());
  EXPECT_EQ(nvls->function, "ReduceScatter");
  EXPECT_EQ(nvls->algorithm, "NVLS_TREE");
  EXPECT_EQ(nvls->protocol, "LL128");
  // Some releases append the communicator; the words we read are unchanged.
  const auto with_comm = parse_tuning_line(
      "h:1:2 [0] NCCL INFO AllReduce: 4 Bytes -> Algo TREE proto LL channel{Lo..Hi}={0..0} comm 0x55a7a339db50");
  ASSERT_TRUE(with_comm.has_value());
  EXPECT_EQ(with_comm->algorithm, "TREE");
  EXPECT_EQ(with_comm->protocol, "LL");
}

TEST(NcclTuningLog, IgnoresOtherLines) {
  EXPECT_FALSE(parse_tuning_line("h:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda13.0"));
  EXPECT_FALSE(parse_tuning_line("h:1:1 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x7f recvbuff 0x7f count 1 datatype 7 op 0 root 0 comm 0x1 [nranks=2] stream 0x2"));
  EXPECT_FALSE(parse_tuning_line("h:1:1 [0] NCCL INFO Channel 00/32 : 0 1"));
  EXPECT_FALSE(parse_tuning_line("AllReduce: 8 Bytes -> Algo RING proto LL"));  // no NCCL INFO marker
  EXPECT_FALSE(parse_tuning_line("h:1:1 [0] NCCL INFO AllReduce: 8 Bytes -> Algo"));
  EXPECT_FALSE(parse_tuning_line(""));
}

TEST(NcclTuningLog, SummarizesTheMostFrequentChoiceForTheRow) {
  std::vector<TuningChoice> choices = {
      {"AllReduce", 1024, "RING", "LL"},  {"AllReduce", 1024, "RING", "LL"}, {"AllReduce", 1024, "TREE", "LL"},
      {"AllReduce", 2048, "RING", "LL128"}, {"Broadcast", 1024, "RING", "SIMPLE"},
  };
  EXPECT_EQ(summarize_choices(choices, "AllReduce", 1024), "RING/LL (also TREE/LL)");
  EXPECT_EQ(summarize_choices(choices, "AllReduce", 2048), "RING/LL128");
  EXPECT_EQ(summarize_choices(choices, "Broadcast", 1024), "RING/SIMPLE");
  EXPECT_EQ(summarize_choices(choices, "Reduce", 1024), "");
}

TEST(NcclTuningLog, NamesOnlyTheTunedCollectives) {
  EXPECT_EQ(nccl_function_name("all_reduce"), "AllReduce");
  EXPECT_EQ(nccl_function_name("reduce_scatter"), "ReduceScatter");
  EXPECT_EQ(nccl_function_name("alltoall"), "");  // grouped send/recv: not tuned
  EXPECT_EQ(nccl_function_name("sendrecv"), "");
}

TEST(NcclTuningLog, FollowerReadsOnlyCompletedNewLines) {
  char path[] = "/tmp/collbench-tuning-test-XXXXXX";
  const int descriptor = mkstemp(path);
  ASSERT_GE(descriptor, 0);
  close(descriptor);
  TuningLogFollower follower(path);
  {
    std::ofstream log(path, std::ios::app);
    log << "h:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\n" << kAllReduceLine << "\n"
        << "h:1:1 [0] NCCL INFO AllReduce: 8 Bytes -> Algo TREE proto LL";  // still being written
  }
  auto first = follower.read_new();
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].bytes, 4194304u);
  {
    std::ofstream log(path, std::ios::app);
    log << " channel{Lo..Hi}={0..0}\n";
  }
  auto second = follower.read_new();
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].bytes, 8u);
  EXPECT_TRUE(follower.read_new().empty());
  std::remove(path);
}

}  // namespace
}  // namespace collbench::nccl
