// PyTorch's traces (kineto_reader.cpp, execution_trace_reader.cpp) on real jobs recorded by
// scripts/validate/record_torch_traces.sh (tests/replay/data/torch/README.md: torch version and
// command): DDP on a small CNN, a tensor-parallel MLP (all-gather, reduce-scatter), a two-stage
// pipeline (send, recv), and gpu-verify's one-rank sequence; then every bad torch trace.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "workloads/replay/report/trace_readers.h"

namespace collbench::replay {
namespace {

const std::string kTorchData = std::string(COLLBENCH_REPLAY_TEST_DATA) + "/";

std::string file_text(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

Trace job(const std::string& name, const std::string& format, int ranks) {
  std::vector<std::string> paths;
  for (int rank = 0; rank < ranks; ++rank) paths.push_back(kTorchData + "torch/" + name + ".rank" + std::to_string(rank) + "." + format + ".json");
  return read_trace(paths);
}

// A sequence as "collective count dtype root group" lines: what the two formats must agree on.
std::vector<std::string> shape_of(const Trace& trace, int rank) {
  std::vector<std::string> lines;
  for (const auto& call : trace.sequences.at(rank)) {
    std::string ranks;
    for (const int member : trace.groups.at(call.group).ranks) ranks += std::to_string(member) + ",";
    lines.push_back(std::string(to_string(call.collective)) + " " + std::to_string(call.count) + " " +
                    std::string(to_string(call.dtype)) + " root " + std::to_string(call.root) + " on " + ranks);
  }
  return lines;
}

TEST(ReplayTorchTraces, DdpAllReducesEachBucketDdpReports) {
  const nlohmann::json expected = nlohmann::json::parse(file_text(kTorchData + "torch/ddp.expected.json"));
  for (const std::string format : {"kineto", "et"}) {
    const Trace trace = job("ddp", format, 2);
    EXPECT_EQ(trace.format, format == "et" ? "execution-trace" : "kineto");
    EXPECT_EQ(trace.world_size, 2);
    EXPECT_TRUE(trace.skipped.empty());
    for (int rank = 0; rank < 2; ++rank) {
      const auto& calls = trace.sequences.at(rank);
      ASSERT_EQ(calls.size(), expected["rebuilt_bucket_sizes"].size()) << format;
      std::uint64_t elements = 0;
      for (std::size_t bucket = 0; bucket < calls.size(); ++bucket) {
        EXPECT_EQ(calls[bucket].collective, TraceCollective::kAllReduce);
        EXPECT_EQ(calls[bucket].dtype, DType::kFloat32);
        EXPECT_EQ(calls[bucket].count * 4, expected["rebuilt_bucket_sizes"][bucket].get<std::uint64_t>()) << format << " bucket " << bucket;
        EXPECT_EQ(trace.groups.at(calls[bucket].group).ranks, (std::vector<int>{0, 1}));
        elements += calls[bucket].count;
      }
      EXPECT_EQ(elements, expected["parameters"].get<std::uint64_t>());  // every gradient, once
      if (format == "kineto") {
        EXPECT_TRUE(calls[1].start_us.has_value());
        EXPECT_TRUE(calls[1].job_duration_us.has_value());  // gloo's own event of the call
        EXPECT_TRUE(gap_before_us(calls, 1).has_value());
      } else {
        EXPECT_FALSE(calls[1].start_us.has_value());  // the execution trace has no times
      }
    }
    check_trace(trace, 2, "ddp");
  }
}

TEST(ReplayTorchTraces, TensorParallelGathersAndScattersItsTokens) {
  // 16 tokens x 64 features over 2 ranks: 8 x 64 = 512 elements a rank, forward then backward.
  const std::vector<std::string> step = {"all_gather 512 float32 root -1 on 0,1,", "reduce_scatter 512 float32 root -1 on 0,1,",
                                         "all_gather 512 float32 root -1 on 0,1,", "reduce_scatter 512 float32 root -1 on 0,1,"};
  for (const std::string format : {"kineto", "et"}) {
    const Trace trace = job("tp", format, 2);
    for (int rank = 0; rank < 2; ++rank) EXPECT_EQ(shape_of(trace, rank), step) << format << " rank " << rank;
    check_trace(trace, 2, "tensor parallel");
  }
}

TEST(ReplayTorchTraces, PipelineSendsActivationsAndReceivesGradients) {
  // Two micro-batches of 8 x 32 = 256 elements.
  const std::vector<std::string> first = {"send 256 float32 root 1 on 0,1,", "recv 256 float32 root 1 on 0,1,",
                                          "send 256 float32 root 1 on 0,1,", "recv 256 float32 root 1 on 0,1,"};
  const std::vector<std::string> second = {"recv 256 float32 root 0 on 0,1,", "send 256 float32 root 0 on 0,1,",
                                           "recv 256 float32 root 0 on 0,1,", "send 256 float32 root 0 on 0,1,"};
  for (const std::string format : {"kineto", "et"}) {
    const Trace trace = job("pipeline", format, 2);
    EXPECT_EQ(shape_of(trace, 0), first) << format;
    EXPECT_EQ(shape_of(trace, 1), second) << format;
    check_trace(trace, 2, "pipeline");
  }
}

TEST(ReplayTorchTraces, GpuVerifyTraceIsOneRankOfAllReduceAllGatherBroadcast) {
  const Trace trace = read_trace({kTorchData + "gpu-verify.trace.json"});
  EXPECT_EQ(trace.format, "kineto");
  EXPECT_EQ(trace.world_size, 1);
  std::vector<std::string> expected;
  for (const int count : {1024, 65536, 262144})
    for (const std::string call : {"all_reduce", "all_gather", "broadcast"})
      expected.push_back(call + " " + std::to_string(count) + " float32 root " + (call == "broadcast" ? "0" : "-1") + " on 0,");
  EXPECT_EQ(shape_of(trace, 0), expected);
  EXPECT_EQ(shape_of(read_trace({kTorchData + "torch/gpu-verify.rank0.et.json"}), 0), expected);
  check_trace(trace, 1, "gpu-verify");
}

std::string torch_error_of(const std::vector<TraceText>& files, TraceFormat format) {
  try {
    format == TraceFormat::kKineto ? read_kineto_trace(files) : read_execution_trace(files);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "";
}

TEST(ReplayTorchTraces, BadTorchTracesNameFileAndKey) {
  const std::string kineto = file_text(kTorchData + "torch/ddp.rank0.kineto.json");
  const std::string et = file_text(kTorchData + "torch/ddp.rank0.et.json");
  const std::string cut = torch_error_of({{"cut.json", kineto.substr(0, kineto.size() / 2)}}, TraceFormat::kKineto);
  EXPECT_EQ(cut.rfind("cut.json: not a Kineto trace JSON file (at byte ", 0), 0u) << cut;
  EXPECT_NE(cut.find("it ends early, truncated?)"), std::string::npos) << cut;
  EXPECT_EQ(torch_error_of({{"job.json", "{\"traceEvents\": []}"}}, TraceFormat::kKineto),
            "job.json: no \"distributedInfo\" (profile after torch.distributed.init_process_group)");
  EXPECT_EQ(torch_error_of({{"a.json", kineto}, {"b.json", kineto}}, TraceFormat::kKineto), "b.json: distributedInfo: a second file for rank 0");
  nlohmann::json wrong_rank = nlohmann::json::parse(kineto);
  wrong_rank["distributedInfo"]["rank"] = 7;
  EXPECT_EQ(torch_error_of({{"r.json", wrong_rank.dump()}}, TraceFormat::kKineto), "r.json: distributedInfo: rank 7 of a world of 2");
  nlohmann::json huge = nlohmann::json::parse(kineto);
  for (auto& event : huge["traceEvents"])
    if (event["name"] == "c10d::allreduce_") event["args"]["Input Dims"][0] = {{4294967296, 4294967296}};
  EXPECT_NE(torch_error_of({{"h.json", huge.dump()}}, TraceFormat::kKineto).find("h.json: traceEvents["), std::string::npos);
  EXPECT_NE(torch_error_of({{"h.json", huge.dump()}}, TraceFormat::kKineto).find("overflows"), std::string::npos);
  nlohmann::json evil = nlohmann::json::parse(kineto);
  for (auto& event : evil["traceEvents"])  // the first bucket's call, renamed: still paired with gloo's events
    if (event["name"] == "c10d::allreduce_") {
      event["name"] = "c10d::\x1b[2Jcoalesced";
      break;
    }
  const Trace read = read_kineto_trace({{"evil.json", evil.dump()}});
  ASSERT_EQ(read.skipped.size(), 1u);
  EXPECT_EQ(read.skipped[0].name, "c10d::?[2Jcoalesced (not a call collbench replays)");
  EXPECT_EQ(read.skipped[0].bytes, 265000u);  // the bucket's bytes, counted as skipped
  EXPECT_EQ(read.sequences.at(0).size(), 1u);
  EXPECT_EQ(torch_error_of({{"job.et.json", et}}, TraceFormat::kExecutionTrace),
            "job.et.json: cannot tell which rank the file is: name it with rank<N> (e.g. job.rank0.et.json)");
  EXPECT_EQ(torch_error_of({{"job.rank5.et.json", et}}, TraceFormat::kExecutionTrace),
            "job.rank5.et.json (rank from the file name): rank 5 of a world of 2");
  EXPECT_EQ(torch_error_of({{"x.rank0.json", "{\"schema\": 1}"}}, TraceFormat::kExecutionTrace),
            "x.rank0.json: no \"nodes\" list (not an execution trace)");
  try {
    check_trace(job("ddp", "kineto", 2), 1, "ddp");
    FAIL();
  } catch (const UsageError& error) {
    EXPECT_STREQ(error.what(), "ddp: the trace is for 2 ranks, but 1 were launched");
  }
}

TEST(ReplayTorchTraces, FormatsAreToldApartByContent) {
  EXPECT_EQ(detect_trace_format({"a", file_text(kTorchData + "gpu-verify.trace.json")}), TraceFormat::kKineto);
  EXPECT_EQ(detect_trace_format({"a", file_text(kTorchData + "torch/gpu-verify.rank0.et.json")}), TraceFormat::kExecutionTrace);
  EXPECT_EQ(detect_trace_format({"a", "host:1:2 [0] NCCL INFO ..."}), TraceFormat::kNcclLog);
  EXPECT_EQ(parse_trace_format("nccl-log"), TraceFormat::kNcclLog);
  EXPECT_EQ(parse_trace_format("chrome"), std::nullopt);
  try {
    read_trace({kTorchData + "gpu-verify.trace.json", kTorchData + "nccl/issue203-nccl-2.4.2.log"});
    FAIL();
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("issue203-nccl-2.4.2.log: not the same trace format as the other files"), std::string::npos);
  }
}

}  // namespace
}  // namespace collbench::replay
