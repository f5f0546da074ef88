// Which algorithm and protocol NCCL chose, read back from its own tuning debug output.
//
// With NCCL_DEBUG=INFO and NCCL_DEBUG_SUBSYS=TUNING, NCCL (2.2x, src/enqueue.cc) writes on comm
// rank 0, once per collective it schedules:
//   host:pid:tid [dev] NCCL INFO AllReduce: 4194304 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..31}
// Send/recv (all-to-all, gather, scatter, sendrecv here) are not tuned and print no such line.
// Pure text handling, no NCCL headers: unit-tested on captured lines wherever collbench builds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace collbench::nccl {

struct TuningChoice {
  std::string function;  // NCCL's name: AllReduce, Broadcast, Reduce, AllGather, ReduceScatter
  std::uint64_t bytes = 0;  // count * element size, count as the call took it
  std::string algorithm;  // RING, TREE, NVLS, NVLS_TREE, COLLNET_DIRECT, COLLNET_CHAIN, PAT
  std::string protocol;   // LL, LL128, SIMPLE
};

// nullopt for any line that is not a tuning line.
std::optional<TuningChoice> parse_tuning_line(std::string_view line);

// NCCL's function name for one of ours ("all_reduce" -> "AllReduce"); "" for collectives NCCL
// runs as send/recv.
std::string nccl_function_name(std::string_view collective);

// "RING/SIMPLE": the most frequent choice among those for `function` at `bytes`, followed by the
// others when NCCL changed its mind ("RING/LL (also TREE/LL)"); "" when there is none.
std::string summarize_choices(const std::vector<TuningChoice>& choices, std::string_view function,
                              std::uint64_t bytes);

// Follows a log file that NCCL appends to: each call returns the tuning lines completed since the
// previous call (a line still being written waits for the next call).
class TuningLogFollower {
 public:
  explicit TuningLogFollower(std::string path) : path_(std::move(path)) {}
  std::vector<TuningChoice> read_new();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::uint64_t offset_ = 0;
};

}  // namespace collbench::nccl
