#include "workloads/replay/replay_plan.h"

#include <algorithm>
#include <map>
#include <set>

namespace collbench::replay {
namespace {

int group_size_of(const TraceCall& call, const Trace& trace) {
  return is_point_to_point(call.collective) ? 2 : static_cast<int>(trace.groups.at(call.group).ranks.size());
}

// FNV-1a over the bytes of one value.
template <typename Value>
void mix(std::uint64_t& hash, const Value& value) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(&value);
  for (std::size_t i = 0; i < sizeof(Value); ++i) hash = (hash ^ bytes[i]) * 1099511628211ull;
}

}  // namespace

std::uint64_t size_bucket(std::uint64_t bytes) {
  if (bytes == 0) return 0;
  std::uint64_t bucket = 1;
  while (bucket <= bytes / 2) bucket *= 2;
  return bucket;
}

BucketKey bucket_of(const TraceCall& call, const Trace& trace) {
  const std::uint64_t bytes = call.collective == TraceCollective::kBarrier ? 0 : payload_bytes(call, trace);
  return {call.collective, size_bucket(bytes), call.dtype, group_size_of(call, trace)};
}

std::vector<BucketTally> tally_buckets(const Trace& trace) {
  struct Sums {
    std::uint64_t rank_calls = 0, rank_bytes = 0;
    double job_us = 0;
    std::uint64_t job_calls = 0;
    std::map<int, double> job_us_by_rank;
  };
  std::map<BucketKey, Sums> sums;
  for (const auto& [rank, calls] : trace.sequences) {
    for (const TraceCall& call : calls) {
      Sums& bucket = sums[bucket_of(call, trace)];
      bucket.rank_calls += 1;
      bucket.rank_bytes += call.collective == TraceCollective::kBarrier ? 0 : payload_bytes(call, trace);
      if (call.job_duration_us) {
        bucket.job_us += *call.job_duration_us;
        bucket.job_calls += 1;
        bucket.job_us_by_rank[rank] += *call.job_duration_us;
      }
    }
  }
  std::vector<BucketTally> tallies;
  for (const auto& [key, bucket] : sums) {
    // A collective's members each issue it: the job made it once.
    const std::uint64_t issuers = is_point_to_point(key.collective) ? 1 : static_cast<std::uint64_t>(key.group_size);
    BucketTally tally{key, bucket.rank_calls / issuers, bucket.rank_bytes / issuers, std::nullopt, std::nullopt};
    if (bucket.job_calls > 0) {
      tally.job_call_us = bucket.job_us / static_cast<double>(bucket.job_calls);
      double largest = 0;
      for (const auto& [rank, us] : bucket.job_us_by_rank) largest = std::max(largest, us);
      tally.job_total_us = largest;
    }
    tallies.push_back(tally);
  }
  return tallies;
}

std::size_t bucket_index(const std::vector<BucketTally>& tallies, const BucketKey& key) {
  const auto found = std::lower_bound(tallies.begin(), tallies.end(), key,
                                      [](const BucketTally& tally, const BucketKey& wanted) { return tally.key < wanted; });
  return static_cast<std::size_t>(found - tallies.begin());
}

JobTimes job_times(const Trace& trace) {
  JobTimes times;
  for (const auto& [rank, calls] : trace.sequences) {
    double comm = 0, first = 0, last = 0;
    bool durations = false, stamps = false;
    for (const TraceCall& call : calls) {
      if (call.job_duration_us) {
        comm += *call.job_duration_us;
        durations = true;
      }
      if (!call.start_us) continue;
      const double end = *call.start_us + call.job_duration_us.value_or(0.0);
      first = stamps ? std::min(first, *call.start_us) : *call.start_us;
      last = stamps ? std::max(last, end) : end;
      stamps = true;
    }
    if (durations) times.comm_us = std::max(times.comm_us.value_or(0.0), comm);
    if (stamps) times.span_us = std::max(times.span_us.value_or(0.0), last - first);
  }
  return times;
}

Communicators communicators_of(const Trace& trace) {
  Communicators made;
  made.of_group.assign(trace.groups.size(), std::nullopt);
  for (const auto& [rank, calls] : trace.sequences) {
    for (const TraceCall& call : calls) {
      if (is_point_to_point(call.collective) || made.of_group[call.group]) continue;
      const std::vector<int>& ranks = trace.groups[call.group].ranks;
      const auto found = std::find(made.ranks.begin(), made.ranks.end(), ranks);
      made.of_group[call.group] = static_cast<std::size_t>(found - made.ranks.begin());
      if (found == made.ranks.end()) made.ranks.push_back(ranks);
    }
  }
  return made;
}

CallElements call_elements(const TraceCall& call, const Trace& trace) {
  const std::uint64_t ranks = trace.groups.at(call.group).ranks.size();
  switch (call.collective) {
    case TraceCollective::kAllGather: case TraceCollective::kGather: return {call.count, call.count * ranks};
    case TraceCollective::kReduceScatter: case TraceCollective::kScatter: return {call.count * ranks, call.count};
    case TraceCollective::kAllToAll: return {call.count * ranks, call.count * ranks};
    case TraceCollective::kSend: return {call.count, 0};
    case TraceCollective::kRecv: return {0, call.count};
    case TraceCollective::kBarrier: return {1, 1};
    default: return {call.count, call.count};
  }
}

CallBytes call_bytes(const TraceCall& call, const Trace& trace) {
  const std::uint64_t element = call.collective == TraceCollective::kBarrier ? 4 : dtype_info(call.dtype).size_bytes;
  const CallElements elements = call_elements(call, trace);
  return {elements.send * element, elements.recv * element};
}

std::uint64_t largest_receive(const std::vector<TraceCall>& calls, const Trace& trace) {
  std::uint64_t largest = 0;
  for (std::size_t index = 0; index < calls.size(); ++index) {
    std::uint64_t bytes = call_bytes(calls[index], trace).recv;
    if (is_point_to_point(calls[index].collective)) {
      const std::size_t end = exchange_end(calls, index);
      for (++index; index < end; ++index) bytes += call_bytes(calls[index], trace).recv;
      --index;
    }
    largest = std::max(largest, bytes);
  }
  return largest;
}

std::vector<SkippedShare> remove_unsupported(Trace& trace, const std::function<std::string(const TraceCall&)>& why_not) {
  std::vector<SkippedShare> shares;
  for (const SkippedCalls& skipped : trace.skipped) {
    shares.push_back({skipped.name, "a call collbench has no form of: counted, not replayed", skipped.calls, skipped.bytes});
  }
  const std::size_t from_trace = shares.size();
  for (auto& [rank, calls] : trace.sequences) {
    std::vector<TraceCall> kept;
    for (TraceCall& call : calls) {
      const std::string reason = why_not(call);
      if (reason.empty()) {
        kept.push_back(std::move(call));
        continue;
      }
      const std::string what = std::string(to_string(call.collective)) + " of " + std::string(to_string(call.dtype));
      auto found = std::find_if(shares.begin() + static_cast<std::ptrdiff_t>(from_trace), shares.end(),
                                [&](const SkippedShare& share) { return share.what == what && share.reason == reason; });
      if (found == shares.end()) found = shares.insert(shares.end(), SkippedShare{what, reason, 0, 0});
      found->calls += 1;
      found->bytes += call.collective == TraceCollective::kBarrier ? 0 : payload_bytes(call, trace);
    }
    calls = std::move(kept);
  }
  return shares;
}

std::size_t exchange_end(const std::vector<TraceCall>& calls, std::size_t first) {
  std::size_t end = first + 1;
  while (end < calls.size() && is_point_to_point(calls[end].collective)) {
    const std::optional<double> idle_us = gap_before_us(calls, end);
    if (idle_us && *idle_us > kSameExchangeGapUs) break;
    ++end;
  }
  return end;
}

std::optional<std::string> exchanges_wait_forever(const Trace& trace) {
  std::map<int, std::size_t> next;  // each rank's first call not done
  std::map<int, bool> posted;       // whether the exchange at its head is posted
  // Per (sender, receiver): sends and receives posted so far; the k-th of each pair up.
  std::map<std::pair<int, int>, std::uint64_t> sends_posted, receives_posted;
  const auto head = [&](int rank) -> const TraceCall* {
    const auto& calls = trace.sequences.at(rank);
    return next[rank] < calls.size() ? &calls[next[rank]] : nullptr;
  };
  for (const auto& [rank, calls] : trace.sequences) next[rank] = 0;
  bool progressed = true;
  while (progressed) {
    progressed = false;
    for (const auto& [rank, calls] : trace.sequences) {
      const TraceCall* call = head(rank);
      if (call == nullptr) continue;
      if (!is_point_to_point(call->collective)) {
        // A collective: done once every member has it at its head.
        const std::vector<int>& members = trace.groups.at(call->group).ranks;
        const bool all_there = std::all_of(members.begin(), members.end(), [&](int member) {
          if (!trace.sequences.count(member)) return false;
          const TraceCall* other = head(member);
          return other != nullptr && !is_point_to_point(other->collective) && other->group == call->group;
        });
        if (!all_there) continue;
        for (const int member : members) ++next[member];
        progressed = true;
        continue;
      }
      const std::size_t end = exchange_end(calls, next[rank]);
      if (!posted[rank]) {
        for (std::size_t i = next[rank]; i < end; ++i) {
          const bool sends = calls[i].collective == TraceCollective::kSend;
          (sends ? sends_posted[{rank, calls[i].root}] : receives_posted[{calls[i].root, rank}]) += 1;
        }
        posted[rank] = true;
        progressed = true;
      }
      // Done when every message of the exchange has its other side posted: a pair's receives
      // have caught up with its sends (this rank the only sender of its sends' pairs, and the only
      // receiver of its receives'). Earlier exchanges are done, so only this one's pairs matter.
      std::set<std::pair<int, int>> pairs;
      for (std::size_t i = next[rank]; i < end; ++i) {
        pairs.insert(calls[i].collective == TraceCollective::kSend ? std::make_pair(rank, calls[i].root)
                                                                    : std::make_pair(calls[i].root, rank));
      }
      const int self = rank;  // a structured binding, which a C++17 lambda cannot capture
      const bool complete = std::all_of(pairs.begin(), pairs.end(), [&](const std::pair<int, int>& pair) {
        return pair.first == self ? receives_posted[pair] >= sends_posted[pair] : sends_posted[pair] >= receives_posted[pair];
      });
      if (!complete) continue;
      next[rank] = end;
      posted[rank] = false;
      progressed = true;
    }
  }
  for (const auto& [rank, calls] : trace.sequences) {
    if (const TraceCall* call = head(rank)) {
      return "the sequences wait on each other as replay_perf issues them (each collective waits for its group, each rank's "
             "consecutive sends and receives are posted together and waited for): rank " + std::to_string(rank) +
             " is stuck at call " + std::to_string(next[rank] + 1) + ", " + std::string(to_string(call->collective)) + " of " +
             std::to_string(call->count) + " " + std::string(to_string(call->dtype)) +
             (call->source.empty() ? std::string() : " (" + call->source + ")");
    }
  }
  return std::nullopt;
}

std::uint64_t trace_fingerprint(const Trace& trace) {
  std::uint64_t hash = 14695981039346656037ull;
  mix(hash, trace.world_size);
  for (const TraceGroup& group : trace.groups) {
    mix(hash, group.ranks.size());
    for (const int rank : group.ranks) mix(hash, rank);
  }
  for (const auto& [rank, calls] : trace.sequences) {
    mix(hash, rank);
    mix(hash, calls.size());
    for (const TraceCall& call : calls) {
      mix(hash, call.collective);
      mix(hash, call.count);
      mix(hash, call.dtype);
      mix(hash, call.op);
      mix(hash, call.root);
      mix(hash, call.group);
      mix(hash, call.start_us.value_or(-1.0));
    }
  }
  return hash;
}

}  // namespace collbench::replay
