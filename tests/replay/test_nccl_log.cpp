// NCCL's log (src/workloads/replay/report/nccl_log_reader.cpp): real lines from public threads of NCCL
// 2.4.2, 2.19.3 and 2.28/2.29 (tests/replay/data/nccl/README.md names each thread), whole logs
// written here with NCCL's own format strings (synthetic, said so), and every bad log.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "workloads/replay/report/trace_readers.h"

namespace collbench::replay {
namespace {

const std::string kNcclData = std::string(COLLBENCH_REPLAY_TEST_DATA) + "/nccl/";

std::vector<std::string> lines_of(const std::string& name) {
  std::ifstream file(kNcclData + name);
  std::vector<std::string> lines;
  for (std::string line; std::getline(file, line);) lines.push_back(line);
  EXPECT_FALSE(lines.empty()) << name;
  return lines;
}

NcclLogLine parsed(const std::string& line) { return parse_nccl_log_line(line, "test:1"); }

TEST(ReplayNcclLog, RealLinesOfNccl242) {
  const auto init = lines_of("issue203-nccl-2.4.2.log");
  const NcclLogLine comm = parsed(init.at(3));
  EXPECT_EQ(comm.kind, NcclLogLine::Kind::kCommunicator);
  EXPECT_EQ(comm.process, "gpu1:11907");
  EXPECT_EQ(comm.device, "[1]");
  EXPECT_EQ(comm.comm, "0x7ef9d4137620");
  EXPECT_EQ(comm.rank, 0);
  EXPECT_EQ(comm.nranks, 2);
  EXPECT_EQ(comm.comm_id, "");  // no commId before 2.18
  EXPECT_EQ(parsed(init.at(1)).kind, NcclLogLine::Kind::kOther);  // "nranks 2" alone is not a communicator
  const NcclLogLine call = parsed(lines_of("issue203-nccl-2.4.2-calls.log").at(2));
  EXPECT_EQ(call.kind, NcclLogLine::Kind::kCall);
  EXPECT_EQ(call.name, "AllReduce");
  EXPECT_EQ(call.count, "237184");
  EXPECT_EQ(call.datatype, 7);
  EXPECT_EQ(call.op, 0);
  EXPECT_EQ(call.comm, "0x7f0c741162f0");
  EXPECT_EQ(call.device, "[0]");
  EXPECT_EQ(call.start_us, std::nullopt);
}

TEST(ReplayNcclLog, RealLinesOfNccl2193And228) {
  const NcclLogLine start = parsed(lines_of("issue1267-nccl-2.19.3.log").at(2));
  EXPECT_EQ(start.kind, NcclLogLine::Kind::kCommunicator);
  EXPECT_EQ(start.rank, 0);
  EXPECT_EQ(start.nranks, 1);
  EXPECT_EQ(start.comm_id, "0x7ef9513a104d9d97");
  const auto lines = lines_of("issue2094-nccl-2.28.log");
  EXPECT_EQ(parsed(lines.at(0)).kind, NcclLogLine::Kind::kOther);  // "rank 3 nRanks 8 nNodes 1": not read
  const NcclLogLine complete = parsed(lines.at(2));
  EXPECT_EQ(complete.kind, NcclLogLine::Kind::kCommunicator);
  EXPECT_EQ(complete.process, "");  // the thread's log has only "[3] NCCL INFO"
  EXPECT_EQ(complete.device, "[3]");
  EXPECT_EQ(complete.comm, "0x563cb890f420");
  EXPECT_EQ(complete.rank, 3);
  EXPECT_EQ(complete.nranks, 8);
  EXPECT_EQ(complete.comm_id, "0xfa356df9cba89de0");
  EXPECT_EQ(parsed(lines.at(3)).kind, NcclLogLine::Kind::kOther);  // "Init timings - ...: rank 3 nranks 8"
}

TEST(ReplayNcclLog, RealCallLinesOfEveryShape) {
  const auto tp = lines_of("issue1369-torchtitan-tp.log");
  EXPECT_EQ(parsed(tp.at(0)).name, "AllGather");
  EXPECT_EQ(parsed(tp.at(1)).name, "ReduceScatter");
  EXPECT_EQ(parsed(tp.at(1)).count, "2097152");
  EXPECT_EQ(parsed(tp.at(1)).process, "hopper01:191369");
  const NcclLogLine send = parsed(lines_of("issue783-send.log").at(0));
  EXPECT_EQ(send.name, "Send");
  EXPECT_EQ(send.root, 1);  // send's peer
  EXPECT_EQ(send.device, "[0]");
  const NcclLogLine prefixed = parsed(lines_of("issue1352-launcher-prefix.log").at(1));
  EXPECT_EQ(prefixed.name, "AllGather");  // "[2] AllGather: ..."
  EXPECT_EQ(prefixed.datatype, 0);
  const auto interleaved = lines_of("issue147-interleaved.log");
  const NcclLogLine second_writer = parsed(interleaved.at(0));
  EXPECT_EQ(second_writer.kind, NcclLogLine::Kind::kCall);
  EXPECT_EQ(second_writer.process, "learnfair062:32629");
  EXPECT_EQ(second_writer.device, "[7]");
  EXPECT_EQ(second_writer.count, "53");
  EXPECT_EQ(parsed(interleaved.at(2)).kind, NcclLogLine::Kind::kCallCut);
}

TEST(ReplayNcclLog, RealLogsReadWholeOrSayWhatIsMissing) {
  const Trace init = read_trace({kNcclData + "issue203-nccl-2.4.2.log"});
  EXPECT_EQ(init.format, "nccl-log");
  EXPECT_EQ(init.world_size, 2);
  EXPECT_EQ(init.sequences.size(), 2u);  // one process, two GPUs: two ranks
  try {
    read_trace({kNcclData + "issue203-nccl-2.4.2-calls.log"});
    FAIL() << "calls without their communicators' lines were read";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("issue203-nccl-2.4.2-calls.log:1: comm 0x7f0c741162f0 has no 'comm ... rank ... nranks' line"),
              std::string::npos) << error.what();
  }
  const Trace partial = read_trace({kNcclData + "issue2094-nccl-2.28.log"});
  EXPECT_EQ(partial.world_size, 8);
  EXPECT_EQ(partial.sequences.size(), 3u);  // ranks 2, 3 and 4 are in the excerpt
  try {
    check_trace(partial, 8, "issue2094");
    FAIL();
  } catch (const UsageError& error) {
    EXPECT_STREQ(error.what(), "issue2094: no calls recorded for rank(s) 0,1,5,6,7 of the trace's 8 (give every rank's file)");
  }
}

// A synthetic log of 4 ranks, one process each, in NCCL 2.28's formats (src/init.cc, src/enqueue.cc
// at v2.28.3-1), with NCCL_DEBUG_TIMESTAMP_LEVELS=INFO's default timestamp: the world, then
// ncclCommSplit's {0,2} and {1,3}.
std::string synthetic_log(int rank, const std::string& extra = "") {
  std::ostringstream log;
  char line[512];
  const auto emit = [&](double seconds, const std::string& text) {
    std::snprintf(line, sizeof line, "[2026-12-07 10:00:%09.6f] node%d:%d:%d [0] NCCL INFO %s\n", seconds, rank,
                  1000 + rank, 2000 + rank, text.c_str());
    log << line;
  };
  const auto world = "0x5550000" + std::to_string(rank);
  const auto split = "0x5560000" + std::to_string(rank);
  emit(0.5, "ncclCommInitRankConfig comm " + world + " rank " + std::to_string(rank) +
                " nranks 4 cudaDev 0 nvmlDev 0 busId 1000 commId 0xabc - Init COMPLETE");
  emit(0.6, "ncclCommSplit comm " + split + " rank " + std::to_string(rank / 2) + " nranks 2 cudaDev 0 nvmlDev 0 busId 1000 parent " +
                world + " splitCount 1 color " + std::to_string(rank % 2) + " key " + std::to_string(rank) + " - Init COMPLETE");
  const auto call = [&](double seconds, const char* name, long count, int datatype, int op, int root, const std::string& comm, int nranks) {
    std::snprintf(line, sizeof line,
                  "%s: opCount 0 sendbuff 0x7f00 recvbuff 0x7f00 count %ld datatype %d op %d root %d comm %s [nranks=%d] stream 0x9",
                  name, count, datatype, op, root, comm.c_str(), nranks);
    emit(seconds, line);
  };
  call(1.0, "AllReduce", 1048576, 7, 0, 0, world, 4);
  call(1.002, "Broadcast", 256, 9, 0, 1, split, 2);  // root 1 of {0,2} is global rank 2
  call(1.010, "AllReduce", 4096, 7, 5, 0, world, 4);  // a PreMulSum op: skipped
  call(1.020, "AllGatherV", 128, 7, 0, 0, world, 4);  // not a call collbench replays: skipped
  call(1.030, "Send", 64, 7, 0, (rank % 2 == 0) ? (rank / 2 + 1) % 2 : (rank / 2 + 1) % 2, split, 2);
  call(1.031, "Recv", 64, 7, 0, (rank / 2 + 1) % 2, split, 2);
  log << extra;
  return log.str();
}

TEST(ReplayNcclLog, SyntheticLogOfSplitCommunicatorsGivesGlobalGroupsRootsAndGaps) {
  std::vector<TraceText> files;
  for (int rank = 0; rank < 4; ++rank) files.push_back({"rank" + std::to_string(rank) + ".log", synthetic_log(rank)});
  const Trace trace = read_nccl_log(files);
  EXPECT_EQ(trace.world_size, 4);
  ASSERT_EQ(trace.sequences.size(), 4u);
  const auto& calls = trace.sequences.at(2);
  ASSERT_EQ(calls.size(), 4u);
  EXPECT_EQ(calls[0].collective, TraceCollective::kAllReduce);
  EXPECT_EQ(calls[0].count, 1048576u);
  EXPECT_EQ(trace.groups.at(calls[0].group).ranks, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(calls[1].collective, TraceCollective::kBroadcast);
  EXPECT_EQ(calls[1].dtype, DType::kBfloat16);
  EXPECT_EQ(trace.groups.at(calls[1].group).ranks, (std::vector<int>{0, 2}));
  EXPECT_EQ(calls[1].root, 2);
  EXPECT_EQ(calls[2].collective, TraceCollective::kSend);
  EXPECT_EQ(calls[2].root, 0);  // the peer inside {0,2}: global rank 0
  EXPECT_NEAR(*gap_before_us(calls, 1), 2000.0, 1e-3);
  EXPECT_EQ(calls[1].source, "rank2.log:4");
  ASSERT_EQ(trace.skipped.size(), 2u);
  EXPECT_EQ(trace.skipped[0].name, "AllReduce (custom reduction op 5)");
  EXPECT_EQ(trace.skipped[0].calls, 4u);
  EXPECT_EQ(trace.skipped[0].bytes, 4u * 4096 * 4);
  EXPECT_EQ(trace.skipped[1].name, "AllGatherV (not a call collbench replays)");
  check_trace(trace, 4, "synthetic");  // the sequences agree
  // One file for all ranks reads the same.
  std::string all;
  for (const auto& file : files) all += file.text;
  const Trace one_file = read_nccl_log({{"all.log", all}});
  EXPECT_EQ(one_file.sequences.at(3).size(), trace.sequences.at(3).size());
}

std::string nccl_error_of(const std::vector<TraceText>& files) {
  try {
    read_nccl_log(files);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "";
}

TEST(ReplayNcclLog, BadLogsNameFileAndLine) {
  const std::string comm = "h:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 1 cudaDev 0 busId 0 - Init COMPLETE\n";
  const auto with_call = [&](const std::string& tail) {
    return nccl_error_of({{"job.log", comm + "h:1:1 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x1 recvbuff 0x1 " + tail + "\n"}});
  };
  EXPECT_EQ(with_call("count 99999999999999999999 datatype 7 op 0 root 0 comm 0x1 [nranks=1] stream 0x2"),
            "job.log:2: count 99999999999999999999 does not fit in 64 bits");
  EXPECT_EQ(with_call("count 4611686018427387904 datatype 8 op 0 root 0 comm 0x1 [nranks=1] stream 0x2"),
            "job.log:2: count 4611686018427387904 of 8-byte elements overflows 64-bit bytes");
  EXPECT_EQ(with_call("count 8 datatype 12 op 0 root 0 comm 0x1 [nranks=1] stream 0x2"),
            "job.log:2: datatype 12 is not one of NCCL's");
  EXPECT_EQ(with_call("count 8 datatype 7 op 0 root 3 comm 0x1 [nranks=1] stream 0x2"),
            "job.log:2: root 3 is outside the communicator's 1 ranks");
  EXPECT_EQ(with_call("count -8 datatype 7 op 0 root 0 comm 0x1 [nranks=1] stream 0x2"),
            "job.log:2: count '-8' is not a whole number");
  EXPECT_EQ(with_call("count 8 data"), "job.log:2: NCCL call line without 'datatype'");  // truncated
  EXPECT_EQ(with_call("count 8 datatype 7 op 0 root 0 comm 0x\x1b[2J [nranks=1] stream 0x2"),
            "job.log:2: comm 0x?[2J has no 'comm ... rank ... nranks' line before it (record with NCCL_DEBUG_SUBSYS=INIT,COLL)");
  EXPECT_EQ(nccl_error_of({{"a.log", "h:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 - Init COMPLETE\n"},
                      {"b.log", "h:2:1 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 - Init COMPLETE\n"}}),
            "a.log (and 1 more): two processes are rank 0 of 2: h:1[0] and h:2[0] (logs of different jobs?)");
  EXPECT_EQ(nccl_error_of({{"x.log", "h:1:1 [0] NCCL INFO comm 0x1 rank 5 nranks 2 cudaDev 0\n"}}),
            "x.log:1: communicator line with rank '5' of nranks '2'");
  EXPECT_EQ(nccl_error_of({{"empty.log", "no nccl here\n"}}),
            "empty.log: no NCCL communicator or collective lines (record with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL)");
}

TEST(ReplayNcclLog, EndlessInputStopsAtTheLineCap) {
  try {
    read_trace({"/dev/zero"});
    FAIL();
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("trace '/dev/zero': line 1 is longer than the 16 MiB cap"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace collbench::replay
