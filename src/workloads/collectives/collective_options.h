// Command-line options of the *_perf executables, parsed once into a const struct.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/dtype.h"
#include "core/rank_groups.h"
#include "harness/flag_groups.h"
#include "core/sizes.h"
#include "core/stats.h"
#include "workloads/collectives/traffic.h"

namespace collbench {

enum class Placement { kOutOfPlace, kInPlace };
enum class PlacementChoice { kOut, kIn, kBoth };
std::string_view to_string(Placement placement);

constexpr int kEveryRoot = -1;

// The flag groups every program shares (loop, run, report, help) come from RunFlags.
struct CollectiveOptions : RunFlags, BackendFlags {
  SizeSweep sweep{32u << 20, 32u << 20, 1u << 20, 0.0};  // nccl-tests defaults: 32M only
  std::vector<std::uint64_t> explicit_sizes;               // --sizes; replaces the sweep when set
  std::vector<DType> dtypes{DType::kFloat32};
  std::vector<ReduceOp> ops{ReduceOp::kSum};
  int root = 0;  // kEveryRoot = every rank in turn
  // -a: the mean over ranks by default, as nccl-tests and OSU; rows also keep the max and min views.
  TimeAggregation aggregation = TimeAggregation::kMean;
  PlacementChoice placement = PlacementChoice::kBoth;
  int gpus_per_process = 1;
  // nccl-tests' measurement flags (harness/measurement_loop.h says what each does to the schedule).
  int calls_per_iteration = 1;       // -m: calls per iteration, grouped on NCCL
  int unaligned_elements = 0;        // -u: buffers start this many elements past an aligned address
  bool report_timestamps = false;    // -S 1: a time stamp per table line
  bool memory_report = false;        // -M 1: per-rank peak memory after the run
  std::optional<double> min_busbw_gbps;  // --min-busbw or NCCL_TESTS_MIN_BW: exit 1 below it
  // GPU backends only (refused with one line on a CPU backend: gpu_only_flags_in_use).
  int blocking = 0;                  // -z 0..3, nccl-tests' meanings
  int graph_launches = 0;            // -G N: the -n batch captured once and replayed N times
  bool per_iteration_marks = false;  // -I 1: per-iteration samples from CUDA events
  bool report_issue_time = false;    // -C 1: print the host's issue time per call (nccl-tests' cputime)
  int registration = 0;              // -R 0 none, 1 ncclCommRegister, 2 symmetric window
  std::string nccl_algo;
  std::string nccl_proto;
  std::string algorithm_file;  // --algo-file: gloo's algorithm per size range (core/algorithm_ranges.h)
  // --capture-algo: record per size the algorithm and protocol NCCL chose, from its TUNING debug
  // log. Off by default because NCCL then writes a log line per call inside the timed loop.
  bool capture_nccl_algorithm = false;
  // --nccl-estimate: ask NCCL's cost model for each row's time (Backend::library_estimate_us). Off
  // by default: NCCL 2.28 runs a simulated group's tasks with its next launch (nccl_backend.cpp),
  // which has been seen to corrupt send/recv at one rank and is unverified at two ranks or more.
  bool nccl_estimate = false;
  // -B N: after timing and checks, each case runs N more times with the same inputs and the outputs
  // are compared bit for bit across the repeats and, where every rank must hold the same result
  // (all_reduce, all_gather, broadcast), across ranks. 0: off.
  int bitwise_repeats = 0;
  // --inject-bitwise-diff repeat|rank, a testing aid: one rank flips the lowest bit of one checked
  // output element in the last repeat (repeat: the last rank holding output) or in every repeat
  // (rank: the last rank that must agree with the others), so that a test can see -B catch it
  // (exit 3). `rank` is refused where ranks hold different outputs by design.
  std::string inject_bitwise_difference;
  // alltoallv_perf only: --pattern (each rank's total from the sweep) or --matrix FILE (every
  // pair's bytes, the sweep unused); uniform when neither is given.
  TrafficSpec traffic;
  bool traffic_given = false;

  // Concurrent groups (issue 62): --split EXPR (or nccl-tests' NCCL_TESTS_SPLIT_MASK, then
  // NCCL_TESTS_SPLIT, when no flag is given) or --groups PATTERN; neither: one group, the world.
  std::optional<SplitRule> split;
  std::string split_source;  // where the rule came from: "--split", "NCCL_TESTS_SPLIT", "NCCL_TESTS_SPLIT_MASK"
  std::optional<GroupPattern> group_pattern;
  std::uint64_t group_seed = 1;     // --group-seed: batch:K's draw
  double slow_group_factor = 0.9;   // --slow-group-factor: SLOW below this share of the faster half's median busbw (report::kSlowGroupRule)
  bool alone = false;               // --alone: also time each group by itself, for its contention
  bool grouped() const { return split.has_value() || group_pattern.has_value(); }
  // The rule as every rank must agree on it ("split MOD 2 (NCCL_TESTS_SPLIT)", "groups batch:2 seed 7"); "" when not grouped.
  std::string grouping_text() const;

  std::vector<std::uint64_t> requested_sizes() const;
  // The GPU-only flags this run sets, as the user wrote them ("-G 4", "-I 1"); empty if none.
  std::vector<std::string> gpu_only_flags_in_use() const;
  std::vector<Placement> placements() const;
};

// Parses argv (without argv[0]). Throws UsageError with one clear sentence on any bad flag.
CollectiveOptions parse_options(const std::vector<std::string>& args);

// context.options: every flag as the run understood it, as its declaration records it.
nlohmann::json options_as_json(const CollectiveOptions& options);

// The --help text for `program` (e.g. "all_reduce_perf").
std::string usage_text(const std::string& program);

}  // namespace collbench
