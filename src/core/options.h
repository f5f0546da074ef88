// Command-line options of the *_perf executables, parsed once into a const struct.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/run_flags.h"
#include "core/sizes.h"

namespace collbench {

enum class Placement { kOutOfPlace, kInPlace };
enum class PlacementChoice { kOut, kIn, kBoth };
// How per-rank times combine into one time per iteration (nccl-tests' -a).
enum class TimeAggregation { kRankZero = 0, kMean = 1, kMin = 2, kMax = 3 };

std::string_view to_string(Placement placement);
std::string_view to_string(TimeAggregation aggregation);

constexpr int kEveryRoot = -1;

// The run flags (-N, -T, -J, --overwrite, --samples, --tag, -h, --version) come from RunFlags.
struct Options : RunFlags {
  SizeSweep sweep{32u << 20, 32u << 20, 1u << 20, 0.0};  // nccl-tests defaults: 32M only
  std::vector<std::uint64_t> explicit_sizes;               // --sizes; replaces the sweep when set
  int iterations = 20;
  int warmup_iterations = 5;
  int check_iterations = 1;
  std::vector<DType> dtypes{DType::kFloat32};
  std::vector<ReduceOp> ops{ReduceOp::kSum};
  int root = 0;  // kEveryRoot = every rank in turn
  TimeAggregation aggregation = TimeAggregation::kMax;
  PlacementChoice placement = PlacementChoice::kBoth;
  std::string backend;  // empty: the default for this build and machine
  std::uint64_t seed = 1;
  int gpus_per_process = 1;
  // GPU backends. -z 1: the host waits for every call and times it on its own clock (nccl-tests'
  // blocking mode); default: CUDA events on the stream. -G N: one CUDA graph of N calls per
  // iteration (0: no graph). --algo/--proto: NCCL_ALGO/NCCL_PROTO, set before communicator init.
  bool blocking = false;
  int graph_calls = 0;
  std::string nccl_algo;
  std::string nccl_proto;
  // --capture-algo: record per size the algorithm and protocol NCCL chose, from its TUNING debug
  // log. Off by default because NCCL then writes a log line per call inside the timed loop.
  bool capture_nccl_algorithm = false;
  // --gloo-iface: the network interface Gloo's TCP transport binds (empty: the one routing to rank 0).
  std::string gloo_iface;
  // Testing aid: the last rank flips one output element before each check, so tests can prove
  // the checker catches a wrong result through the real buffer path.
  bool inject_corrupt_output = false;

  std::vector<std::uint64_t> requested_sizes() const;
  std::vector<Placement> placements() const;
};

// Parses argv (without argv[0]). Throws UsageError with one clear sentence on any bad flag.
Options parse_options(const std::vector<std::string>& args);

// The --help text for `program` (e.g. "all_reduce_perf").
std::string usage_text(const std::string& program);

}  // namespace collbench
