// A recorded job's trace as the same job at another number of ranks (replay_perf --scale, collbench
// model predict --trace --np; issue 61). Rank r of the scaled job plays recorded rank r mod N's part
// (N the recorded ranks), in replica r / N:
//   - a group of every recorded rank (the job's world: its data-parallel group in DDP and FSDP)
//     becomes the new world, of M ranks;
//   - a smaller group (tensor parallelism inside a node, a pipeline's pairs) and every send and
//     receive are replicated, one copy per replica, at their recorded size: so M must be a
//     multiple of N where the trace has any (refused with one line otherwise), and a trace whose
//     every call is on the whole world may also shrink (M < N: roots r mod M);
//   - the world's all_reduce, broadcast, reduce and barrier keep their count (DDP's bucket on
//     each rank does not depend on the world: the job's meaning is kept, weak scaling);
//   - the world's all_gather, reduce_scatter, alltoall, gather and scatter keep either each
//     rank's count (per-rank: the gathered tensor grows with the world, as sequence-parallel
//     activations or a model sharded per rank would) or the whole buffer (total: FSDP with the same
//     model, whose shard per rank shrinks to ceil(count N / M), padded as FSDP pads its flat
//     parameter); which keeps the job's meaning depends on the job, so the choice is the user's.
// Pure: no MPI, backend or driver.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/replay/report/trace.h"

namespace collbench::replay {

// What the world's all_gather, reduce_scatter, alltoall, gather and scatter keep when scaled.
enum class ScaleCounts { kPerRank, kTotal };
std::optional<ScaleCounts> parse_scale_counts(std::string_view text);  // per-rank, total
// The value of `flag` (--scale-counts, of replay_perf and collbench model predict); UsageError otherwise.
ScaleCounts scale_counts_flag(const std::string& value, const std::string& flag);
std::string to_string(ScaleCounts counts);

struct TraceScale {
  int world_size = 0;  // 0: as recorded
  ScaleCounts counts = ScaleCounts::kPerRank;
};

// Whether `scale` changes `recorded` at all (a world size other than the recorded one).
bool scales(const Trace& recorded, const TraceScale& scale);

// The scaling as the replay's rows key it: "none", or "2->4 per-rank" (recorded -> scaled ranks,
// counts kept), so that compare and history never take a scaled run for an unscaled one.
std::string scale_key(const Trace& recorded, const TraceScale& scale);

// The trace at scale.world_size ranks; `recorded` must have passed check_trace. Throws UsageError
// naming `what` (the trace) and `flag` (what asked for the ranks: --scale, or predict's --np) where
// the trace cannot be scaled so: a group smaller than the world or a send where M is not a multiple
// of N, or a count that no longer fits in 64 bits.
Trace scale_trace(const Trace& recorded, const TraceScale& scale, const std::string& what, const std::string& flag = "--scale");

// What the scaling changed of the job's meaning, one sentence each (the report's header, predict's
// notes): which calls grew or shrank, and which groups were replicated.
std::vector<std::string> scale_notes(const Trace& recorded, const TraceScale& scale);

}  // namespace collbench::replay
