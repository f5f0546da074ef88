// The communication of a recorded job, as every trace format reads into it (issue 61): per global
// rank, the calls in the order the rank issued them, on groups named by their global ranks.
// Pure data and pure checks: no MPI, no backend, no driver; replay_perf builds on it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.h"

namespace collbench::replay {

// The calls collbench can replay; their names are collbench's collective names.
enum class TraceCollective {
  kAllReduce, kBroadcast, kReduce, kAllGather, kReduceScatter, kAllToAll, kGather, kScatter, kSend, kRecv, kBarrier,
};
std::string_view to_string(TraceCollective collective);
bool reduces(TraceCollective collective);   // has a reduction op
bool has_root(TraceCollective collective);  // broadcast, reduce, gather, scatter
bool is_point_to_point(TraceCollective collective);

// One group of ranks a call runs on: global ranks, in the order of their rank inside the group.
struct TraceGroup {
  std::vector<int> ranks;
  std::string name;  // the trace's own name for it: a process group name, "comm 0x... (commId 0x...)"
};

struct TraceCall {
  TraceCollective collective = TraceCollective::kAllReduce;
  // NCCL's count: elements of one rank's buffer as the NCCL call takes it (all_gather: what each
  // rank sends; reduce_scatter: what each rank receives; all_to_all: what goes to each peer).
  std::uint64_t count = 0;
  DType dtype = DType::kFloat32;
  ReduceOp op = ReduceOp::kSum;  // meaningful where reduces(collective)
  int root = -1;                 // global rank: the root, or send's/recv's peer; -1 where none
  std::size_t group = 0;         // index into Trace::groups
  std::optional<double> start_us;         // when the job issued it (the trace's clock), where recorded
  std::optional<double> job_duration_us;  // the job's own time of the call, where recorded
  std::string source;                     // where it was read: "file:line" or "file: key"
};

// Calls of one kind the trace holds and collbench does not replay (coalesced, custom ops, ...).
struct SkippedCalls {
  std::string name;  // the trace's name, with why: "AllReduce (custom op 5)", "allreduce_coalesced"
  std::uint64_t calls = 0;
  std::uint64_t bytes = 0;
};

struct Trace {
  std::string format;  // "nccl-log", "kineto", "execution-trace"
  int world_size = 0;
  std::vector<TraceGroup> groups;
  std::map<int, std::vector<TraceCall>> sequences;  // by global rank
  std::vector<SkippedCalls> skipped;                // summed over ranks, by name
};

// The bytes of the call's larger buffer on one rank (all_gather: the gathered result).
std::uint64_t payload_bytes(const TraceCall& call, const Trace& trace);
// The bytes of every replayed call and of every skipped one, over all ranks.
std::uint64_t replayed_bytes(const Trace& trace);
std::uint64_t skipped_bytes(const Trace& trace);

// Idle time before calls[index]: its start less the previous call's start and job duration
// (just its start where the trace has no durations), never below 0; nothing without timestamps.
std::optional<double> gap_before_us(const std::vector<TraceCall>& calls, std::size_t index);

// Adds a skipped call to the trace's tally under `name`.
void count_skipped(Trace& trace, const std::string& name, std::uint64_t bytes);

// The first reason the ranks' sequences would not run together, as one line (nullopt: they
// would): a call whose members issue different collectives, counts, dtypes, ops or roots on a
// group, a receive without its send, or calls on different groups that wait on each other. Found
// by stepping every rank's sequence as a job would (collectives wait for all members; sends do
// not wait), so it costs time linear in the calls, never a hang.
std::optional<std::string> sequences_disagree(const Trace& trace);

// Every check before a replay on `launched_ranks` ranks (UsageError, one line naming the trace):
// world larger than launched, groups naming ranks outside the world, ranks without a sequence,
// sequences that disagree.
void check_trace(const Trace& trace, int launched_ranks, const std::string& what);

}  // namespace collbench::replay
