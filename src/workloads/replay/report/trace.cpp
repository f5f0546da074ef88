#include "workloads/replay/report/trace.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <set>

#include "core/error.h"
#include "core/printable.h"

namespace collbench::replay {

std::string_view to_string(TraceCollective collective) {
  switch (collective) {
    case TraceCollective::kAllReduce: return "all_reduce";
    case TraceCollective::kBroadcast: return "broadcast";
    case TraceCollective::kReduce: return "reduce";
    case TraceCollective::kAllGather: return "all_gather";
    case TraceCollective::kReduceScatter: return "reduce_scatter";
    case TraceCollective::kAllToAll: return "alltoall";
    case TraceCollective::kGather: return "gather";
    case TraceCollective::kScatter: return "scatter";
    case TraceCollective::kSend: return "send";
    case TraceCollective::kRecv: return "recv";
    case TraceCollective::kBarrier: return "barrier";
  }
  return "?";
}

bool reduces(TraceCollective collective) {
  return collective == TraceCollective::kAllReduce || collective == TraceCollective::kReduce ||
         collective == TraceCollective::kReduceScatter;
}

bool has_root(TraceCollective collective) {
  return collective == TraceCollective::kBroadcast || collective == TraceCollective::kReduce ||
         collective == TraceCollective::kGather || collective == TraceCollective::kScatter;
}

bool is_point_to_point(TraceCollective collective) {
  return collective == TraceCollective::kSend || collective == TraceCollective::kRecv;
}

std::uint64_t payload_bytes(const TraceCall& call, const Trace& trace) {
  const std::uint64_t bytes = call.count * dtype_info(call.dtype).size_bytes;
  switch (call.collective) {
    case TraceCollective::kAllGather: case TraceCollective::kReduceScatter: case TraceCollective::kAllToAll:
    case TraceCollective::kGather: case TraceCollective::kScatter:
      return bytes * trace.groups.at(call.group).ranks.size();
    default: return bytes;
  }
}

std::uint64_t replayed_bytes(const Trace& trace) {
  std::uint64_t total = 0;
  for (const auto& [rank, calls] : trace.sequences)
    for (const auto& call : calls) total += payload_bytes(call, trace);
  return total;
}

std::uint64_t skipped_bytes(const Trace& trace) {
  std::uint64_t total = 0;
  for (const auto& skipped : trace.skipped) total += skipped.bytes;
  return total;
}

std::optional<double> gap_before_us(const std::vector<TraceCall>& calls, std::size_t index) {
  if (index >= calls.size() || !calls[index].start_us) return std::nullopt;
  if (index == 0) return 0.0;
  const TraceCall& previous = calls[index - 1];
  if (!previous.start_us) return std::nullopt;
  const double previous_end = *previous.start_us + previous.job_duration_us.value_or(0.0);
  return std::max(0.0, *calls[index].start_us - previous_end);
}

void count_skipped(Trace& trace, const std::string& name, std::uint64_t bytes) {
  auto found = std::find_if(trace.skipped.begin(), trace.skipped.end(),
                            [&](const SkippedCalls& skipped) { return skipped.name == name; });
  if (found == trace.skipped.end()) found = trace.skipped.insert(trace.skipped.end(), SkippedCalls{name, 0, 0});
  found->calls += 1;
  found->bytes += bytes;
}

namespace {

// "all_reduce of 1024 float32 (sum) on group 0 [0,1] (file:12)": a call as the messages name it.
std::string describe(const TraceCall& call, const Trace& trace) {
  std::string text = std::string(to_string(call.collective)) + " of " + std::to_string(call.count) + " " +
                     std::string(to_string(call.dtype));
  if (reduces(call.collective)) text += " (" + std::string(to_string(call.op)) + ")";
  if (call.root >= 0) text += (is_point_to_point(call.collective) ? " peer " : " root ") + std::to_string(call.root);
  std::vector<std::string> ranks;
  for (const int rank : trace.groups.at(call.group).ranks) ranks.push_back(std::to_string(rank));
  text += " on group [" + joined(ranks, ",") + "]";
  if (!call.source.empty()) text += " (" + call.source + ")";
  return printable(text);
}

bool same_signature(const TraceCall& a, const TraceCall& b) {
  return a.collective == b.collective && a.count == b.count && a.dtype == b.dtype &&
         (!reduces(a.collective) || a.op == b.op) && a.root == b.root;
}

}  // namespace

std::optional<std::string> sequences_disagree(const Trace& trace) {
  // Each rank's position; the sends on their way, per (sender, receiver), in the order sent.
  std::map<int, std::size_t> next;
  for (const auto& [rank, calls] : trace.sequences) next[rank] = 0;
  std::map<std::pair<int, int>, std::deque<const TraceCall*>> in_flight;
  const auto head = [&](int rank) -> const TraceCall* {
    const auto& calls = trace.sequences.at(rank);
    return next[rank] < calls.size() ? &calls[next[rank]] : nullptr;
  };
  bool progressed = true;
  while (progressed) {
    progressed = false;
    for (const auto& [rank, calls] : trace.sequences) {
      // Advance this rank as far as it goes; a collective advances all its members at once.
      while (const TraceCall* call = head(rank)) {
        if (call->collective == TraceCollective::kSend) {
          in_flight[{rank, call->root}].push_back(call);
        } else if (call->collective == TraceCollective::kRecv) {
          auto& queue = in_flight[{call->root, rank}];
          if (queue.empty()) break;
          const TraceCall* send = queue.front();
          if (send->count != call->count || send->dtype != call->dtype)
            return "rank " + std::to_string(call->root) + "'s " + describe(*send, trace) + " meets rank " +
                   std::to_string(rank) + "'s " + describe(*call, trace);
          queue.pop_front();
        } else {
          const auto& members = trace.groups.at(call->group).ranks;
          bool all_there = true;
          for (const int member : members) {
            if (!trace.sequences.count(member)) return "rank " + std::to_string(member) + " has no sequence for " + describe(*call, trace);
            const TraceCall* other = head(member);
            if (other == nullptr || other->group != call->group || is_point_to_point(other->collective)) {
              all_there = false;
              continue;
            }
            if (!same_signature(*call, *other))
              return "rank " + std::to_string(rank) + " issues " + describe(*call, trace) + " where rank " +
                     std::to_string(member) + " issues " + describe(*other, trace);
          }
          if (!all_there) break;
          for (const int member : members) if (member != rank) ++next[member];
        }
        ++next[rank];
        progressed = true;
      }
    }
  }
  for (const auto& [rank, calls] : trace.sequences) {
    if (const TraceCall* call = head(rank))
      return "the sequences wait on each other: rank " + std::to_string(rank) + " is stuck at call " +
             std::to_string(next[rank] + 1) + ", " + describe(*call, trace);
  }
  for (const auto& [pair, queue] : in_flight)
    if (!queue.empty())
      return "rank " + std::to_string(pair.second) + " never receives rank " + std::to_string(pair.first) + "'s " +
             describe(*queue.front(), trace);
  return std::nullopt;
}

void check_trace(const Trace& trace, int launched_ranks, const std::string& what) {
  const std::string name = printable(what);
  if (trace.world_size < 1) throw UsageError(name + ": the trace names no ranks");
  if (trace.world_size > launched_ranks)
    throw UsageError(name + ": the trace is for " + std::to_string(trace.world_size) + " ranks, but " +
                     std::to_string(launched_ranks) + " were launched");
  for (const auto& group : trace.groups)
    for (const int rank : group.ranks)
      if (rank < 0 || rank >= trace.world_size)
        throw UsageError(name + ": group " + printable(group.name) + " names rank " + std::to_string(rank) +
                         ", outside the trace's " + std::to_string(trace.world_size) + " ranks");
  std::vector<std::string> missing;
  for (int rank = 0; rank < trace.world_size; ++rank)
    if (!trace.sequences.count(rank)) missing.push_back(std::to_string(rank));
  if (!missing.empty())
    throw UsageError(name + ": no calls recorded for rank(s) " + joined(missing, ",") + " of the trace's " +
                     std::to_string(trace.world_size) + " (give every rank's file)");
  if (const auto reason = sequences_disagree(trace)) throw UsageError(name + ": " + *reason);
}

}  // namespace collbench::replay
