#include "workloads/replay/report/trace_scale.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <set>

#include "core/error.h"
#include "core/printable.h"

namespace collbench::replay {
namespace {

// Whether the group holds every recorded rank (in any order): the job's world.
bool spans_world(const TraceGroup& group, int world_size) {
  if (static_cast<int>(group.ranks.size()) != world_size) return false;
  const std::set<int> distinct(group.ranks.begin(), group.ranks.end());
  return static_cast<int>(distinct.size()) == world_size;
}

// Calls on the world whose buffers are one count per rank of the group: the ones whose per-rank
// count or whole buffer the scaling keeps (ScaleCounts).
bool count_per_member(TraceCollective collective) {
  switch (collective) {
    case TraceCollective::kAllGather: case TraceCollective::kReduceScatter: case TraceCollective::kAllToAll:
    case TraceCollective::kGather: case TraceCollective::kScatter: return true;
    default: return false;
  }
}

// The first thing of the trace that only replication can scale: a collective on a group smaller
// than the world, or a send or receive ("" where there is none).
std::string first_replicated_part(const Trace& trace) {
  for (const auto& [rank, calls] : trace.sequences) {
    for (const TraceCall& call : calls) {
      if (is_point_to_point(call.collective)) {
        return std::string(to_string(call.collective)) + " between ranks " + std::to_string(rank) + " and " + std::to_string(call.root);
      }
      const TraceGroup& group = trace.groups.at(call.group);
      if (!spans_world(group, trace.world_size)) {
        std::string ranks;
        for (const int member : group.ranks) ranks += (ranks.empty() ? "" : ",") + std::to_string(member);
        return "group " + printable(group.name) + " (ranks " + ranks + ")";
      }
    }
  }
  return "";
}

std::uint64_t checked_product(std::uint64_t a, std::uint64_t b, const std::string& where) {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) throw UsageError(where);
  return a * b;
}

}  // namespace

std::optional<ScaleCounts> parse_scale_counts(std::string_view text) {
  if (text == "per-rank") return ScaleCounts::kPerRank;
  if (text == "total") return ScaleCounts::kTotal;
  return std::nullopt;
}

ScaleCounts scale_counts_flag(const std::string& value, const std::string& flag) {
  const auto parsed = parse_scale_counts(value);
  if (!parsed) throw UsageError("unknown counts '" + value + "' for " + flag + " (use per-rank or total)");
  return *parsed;
}

std::string to_string(ScaleCounts counts) { return counts == ScaleCounts::kTotal ? "total" : "per-rank"; }

bool scales(const Trace& recorded, const TraceScale& scale) {
  return scale.world_size > 0 && scale.world_size != recorded.world_size;
}

std::string scale_key(const Trace& recorded, const TraceScale& scale) {
  if (!scales(recorded, scale)) return "none";
  return std::to_string(recorded.world_size) + "->" + std::to_string(scale.world_size) + " " + to_string(scale.counts);
}

Trace scale_trace(const Trace& recorded, const TraceScale& scale, const std::string& what, const std::string& flag_name) {
  if (!scales(recorded, scale)) return recorded;
  const int n = recorded.world_size, m = scale.world_size;
  const std::string flag = flag_name + " " + std::to_string(m);
  if (const std::string part = first_replicated_part(recorded); !part.empty()) {
    if (m < n) {
      throw UsageError(what + ": " + flag + " is below the trace's " + std::to_string(n) + " ranks, and its " + part +
                       " is not on the whole world: only a trace whose every call is on the world shrinks");
    }
    if (m % n != 0) {
      throw UsageError(what + ": " + flag + " is not a multiple of the trace's " + std::to_string(n) + " ranks, and its " + part +
                       " is replicated once per " + std::to_string(n) + " ranks (use a multiple of " + std::to_string(n) + ")");
    }
  }
  const int replicas = (m + n - 1) / n;
  Trace scaled;
  scaled.format = recorded.format;
  scaled.world_size = m;
  // Each recorded group's copies: the world's one new world, a smaller group one per replica.
  std::vector<std::vector<std::size_t>> copies(recorded.groups.size());
  std::vector<int> everyone(static_cast<std::size_t>(m));
  std::iota(everyone.begin(), everyone.end(), 0);
  for (std::size_t g = 0; g < recorded.groups.size(); ++g) {
    const TraceGroup& group = recorded.groups[g];
    if (spans_world(group, n)) {
      copies[g].assign(static_cast<std::size_t>(replicas), scaled.groups.size());
      scaled.groups.push_back({everyone, group.name + " (scaled to " + std::to_string(m) + " ranks)"});
      continue;
    }
    for (int replica = 0; replica < replicas; ++replica) {
      TraceGroup copy{group.ranks, replica == 0 ? group.name : group.name + " (replica " + std::to_string(replica) + ")"};
      for (int& rank : copy.ranks) rank += replica * n;
      copies[g].push_back(scaled.groups.size());
      scaled.groups.push_back(std::move(copy));
    }
  }
  for (int rank = 0; rank < m; ++rank) {
    const int role = rank % n, replica = rank / n;
    const auto found = recorded.sequences.find(role);
    if (found == recorded.sequences.end()) continue;
    std::vector<TraceCall>& calls = scaled.sequences[rank];
    calls.reserve(found->second.size());
    for (TraceCall call : found->second) {
      const bool world = spans_world(recorded.groups.at(call.group), n);
      call.group = copies[call.group][static_cast<std::size_t>(replica)];
      if (is_point_to_point(call.collective)) {
        call.root += replica * n;
      } else if (has_root(call.collective) && call.root >= 0) {
        call.root = world ? call.root % m : call.root + replica * n;
      }
      if (world && count_per_member(call.collective) && scale.counts == ScaleCounts::kTotal) {
        const std::uint64_t total = checked_product(call.count, static_cast<std::uint64_t>(n),
                                                    what + ": " + flag + ": a count times the trace's ranks does not fit in 64 bits (" + printable(call.source) + ")");
        call.count = total / static_cast<std::uint64_t>(m) + (total % static_cast<std::uint64_t>(m) != 0 ? 1 : 0);
      }
      // The largest buffer of the call, now at M ranks, must still be a number of bytes.
      checked_product(checked_product(call.count, dtype_info(call.dtype).size_bytes, what), static_cast<std::uint64_t>(m),
                      what + ": " + flag + ": a call's buffer at " + std::to_string(m) + " ranks does not fit in 64 bits (" + printable(call.source) + ")");
      calls.push_back(std::move(call));
    }
  }
  // What the readers skipped, for M ranks as for N: each rank's share as recorded.
  for (SkippedCalls skipped : recorded.skipped) {
    skipped.calls = skipped.calls * static_cast<std::uint64_t>(m) / static_cast<std::uint64_t>(n);
    skipped.bytes = skipped.bytes / static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(m);
    scaled.skipped.push_back(std::move(skipped));
  }
  return scaled;
}

std::vector<std::string> scale_notes(const Trace& recorded, const TraceScale& scale) {
  if (!scales(recorded, scale)) return {};
  const int n = recorded.world_size, m = scale.world_size;
  std::set<std::string> kept, changed;
  bool replicated = false;
  for (const auto& [rank, calls] : recorded.sequences) {
    for (const TraceCall& call : calls) {
      const std::string name(to_string(call.collective));
      if (is_point_to_point(call.collective) || !spans_world(recorded.groups.at(call.group), n)) {
        replicated = true;
      } else if (count_per_member(call.collective)) {
        changed.insert(name);
      } else {
        kept.insert(name);
      }
    }
  }
  const auto list = [](const std::set<std::string>& names) {
    std::string text;
    for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
    return text;
  };
  std::vector<std::string> notes;
  notes.push_back("scaled from the trace's " + std::to_string(n) + " ranks to " + std::to_string(m) +
                  ": rank r plays recorded rank r mod " + std::to_string(n) + "; the world's groups are the new world");
  if (!kept.empty()) notes.push_back(list(kept) + " on the world keep each rank's count: the job's meaning is kept (DDP's buckets per rank do not depend on the world)");
  if (!changed.empty()) {
    notes.push_back(scale.counts == ScaleCounts::kPerRank
                        ? list(changed) + " on the world keep each rank's count (--scale-counts per-rank): the whole buffer grows " +
                              std::to_string(m) + "/" + std::to_string(n) + " times, a larger model or activation than the job's (FSDP with the same model: --scale-counts total)"
                        : list(changed) + " on the world keep the whole buffer (--scale-counts total): each rank's share is 1/" + std::to_string(m) +
                              " of it (rounded up, as FSDP pads), the same model sharded over more ranks");
  }
  if (replicated) {
    notes.push_back("groups smaller than the world and sends are replicated, " + std::to_string(m / n) +
                    " copies at their recorded size (tensor or pipeline parallelism unchanged; a data-parallel group that is not the whole world does not grow)");
  }
  return notes;
}

}  // namespace collbench::replay
