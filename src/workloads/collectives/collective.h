// The descriptor every collective workload fills: what it moves and what it must give.
//
// Like nccl-tests' testColl, one small file per collective (src/workloads/<name>.cpp) fills one
// of these; the runner does everything else (sweeps, buffers, timing, checks, statistics). A
// backend runs a collective by its name, from the backend's own table (backends/backend.h).
// Input element i of rank r is always input_value(r, i) (core/values.h), whatever the collective,
// so a descriptor only says where each output element comes from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/bus_factor.h"
#include "workloads/collectives/traffic.h"

namespace collbench {

// Element counts for one row, nccl-tests' getCollByteCount. `row_count` is the row's size in
// elements (the size column). In place, one buffer holds both sides: this rank's send data starts
// at rank * in_place_send_stride and its output at rank * in_place_recv_stride.
struct BufferLayout {
  std::size_t call_count = 0;  // the count the library call takes
  std::size_t send_count = 0;
  std::size_t recv_count = 0;
  std::size_t in_place_send_stride = 0;
  std::size_t in_place_recv_stride = 0;
};

// Where one output element comes from.
struct Expected {
  enum class Kind { kUnchecked, kCopyOf, kReductionAt };
  Kind kind = Kind::kUnchecked;
  int source_rank = 0;            // kCopyOf: whose input
  std::uint64_t source_index = 0;  // kCopyOf and kReductionAt: which input element

  static Expected unchecked() { return {}; }
  static Expected copy_of(int rank, std::uint64_t index) { return {Kind::kCopyOf, rank, index}; }
  static Expected reduction_at(std::uint64_t index) { return {Kind::kReductionAt, 0, index}; }
};

struct OutputContext {
  int rank = 0;
  int ranks = 1;
  int root = 0;
  std::size_t call_count = 0;
  bool in_place = false;
  const TrafficMatrix* traffic = nullptr;  // the row's traffic, for collectives with per-peer counts (alltoallv)
};

struct Collective {
  std::string_view name;  // "all_reduce"; the executable is <name>_perf
  bool takes_op;
  bool takes_root;
  // nccl-tests' busbw = algbw * factor; see doc/PERFORMANCE.md there and DESIGN.md here.
  BusFactor bus_factor;
  // Per-rank blocks are rounded down to whole 16-byte units, as nccl-tests rounds them
  // ((count / ranks) & ~(16 / element_bytes - 1)), so every rank's block starts 16-byte aligned
  // and rows have nccl-tests' sizes at any rank count.
  BufferLayout (*layout)(std::size_t row_count, int ranks, std::size_t element_bytes);
  Expected (*expected_output)(const OutputContext& where, std::size_t output_index);
  // Every rank must end with the same bits (all_reduce, all_gather, broadcast): -B compares ranks too.
  bool same_output_on_every_rank = false;
  // Collectives with per-peer counts (alltoallv): this rank's layout from the row's traffic matrix
  // (traffic.h), which the call carries as per-peer blocks; `layout` is then what uniform traffic
  // gives. nullptr for every collective whose counts are one per call.
  BufferLayout (*traffic_layout)(const TrafficMatrix& traffic, int rank) = nullptr;
};

// The descriptor's flags by name, so that a collective's one line says what it is:
// {"reduce", kTakesOp, kTakesRoot, ...} rather than {"reduce", true, true, ...}.
inline constexpr bool kTakesOp = true, kNoOp = false;
inline constexpr bool kTakesRoot = true, kNoRoot = false;
inline constexpr bool kSameOutputOnEveryRank = true, kOutputPerRank = false;

// Layouts shared by several collectives.
BufferLayout whole_buffer_layout(std::size_t row_count, int ranks, std::size_t element_bytes);  // all_reduce, broadcast, reduce, sendrecv
BufferLayout gathering_layout(std::size_t row_count, int ranks, std::size_t element_bytes);     // all_gather, gather: n blocks out
BufferLayout scattering_layout(std::size_t row_count, int ranks, std::size_t element_bytes);    // reduce_scatter, scatter: n blocks in
BufferLayout alltoall_layout(std::size_t row_count, int ranks, std::size_t element_bytes);      // alltoall, uniform alltoallv
// One rank's block of a partitioned row, rounded down to whole 16-byte units (nccl-tests).
std::size_t aligned_rank_block(std::size_t row_count, int ranks, std::size_t element_bytes);

const std::vector<const Collective*>& all_collectives();
const Collective* find_collective(std::string_view name);

}  // namespace collbench
