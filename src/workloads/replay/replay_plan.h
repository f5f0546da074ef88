// What replay_perf makes of a checked trace (issue 61), the same on every rank: the communicators
// its groups need, the buckets its rows are made of, the calls a backend cannot run, and each call's
// buffers. Pure: no MPI, backend or driver; the tests count a fixture's rows through it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "workloads/replay/report/trace.h"

namespace collbench::replay {

// A row's identity: collective, size bucket, dtype and group size. The bucket is [2^k, 2^(k+1))
// bytes of the call's larger buffer (payload_bytes), named by 2^k; a point-to-point call's group is
// its pair (2).
struct BucketKey {
  TraceCollective collective = TraceCollective::kAllReduce;
  std::uint64_t bucket_bytes = 0;
  DType dtype = DType::kFloat32;
  int group_size = 0;
  bool operator<(const BucketKey& other) const {
    return std::tie(collective, bucket_bytes, dtype, group_size) <
           std::tie(other.collective, other.bucket_bytes, other.dtype, other.group_size);
  }
  bool operator==(const BucketKey& other) const { return !(*this < other) && !(other < *this); }
};
std::uint64_t size_bucket(std::uint64_t bytes);  // the largest power of two <= bytes; 0 for 0
BucketKey bucket_of(const TraceCall& call, const Trace& trace);

// One bucket over the whole job: a collective counted once for its group (its members each issue
// it), a send or a receive once for the rank that issues it.
struct BucketTally {
  BucketKey key;
  std::uint64_t calls = 0;  // per pass over the sequence
  std::uint64_t bytes = 0;  // per pass: payload_bytes of each call, counted as the calls are
  // The job's own time of the bucket's calls, where the trace has it: the mean per call over every
  // rank's calls that record one, and per pass the rank with the largest sum.
  std::optional<double> job_call_us;
  std::optional<double> job_total_us;
};
// Every bucket of the trace, ordered by key.
std::vector<BucketTally> tally_buckets(const Trace& trace);
// Index of `key` in `tallies` (it must be there).
std::size_t bucket_index(const std::vector<BucketTally>& tallies, const BucketKey& key);

// The job's time per rank from the trace, where recorded: its calls' own durations summed, and
// the span from its first call's start to its last call's end; the largest over ranks.
struct JobTimes {
  std::optional<double> comm_us;
  std::optional<double> span_us;
};
JobTimes job_times(const Trace& trace);

// The distinct rank lists of the groups the collectives run on, in first-seen order, and each
// group's index among them (groups of equal ranks share one communicator; a group only sends and
// receives run on has none: those go over the world's).
struct Communicators {
  std::vector<std::vector<int>> ranks;
  std::vector<std::optional<std::size_t>> of_group;  // by trace group
};
Communicators communicators_of(const Trace& trace);

// A call's buffers on the rank that issues it, in elements and in bytes (out of place; a barrier
// replays as a one-element float32 all-reduce on its group).
struct CallElements {
  std::uint64_t send = 0, recv = 0;
};
CallElements call_elements(const TraceCall& call, const Trace& trace);
struct CallBytes {
  std::uint64_t send = 0, recv = 0;
};
CallBytes call_bytes(const TraceCall& call, const Trace& trace);

// The receive buffer a rank's calls need: its largest call's, or an exchange's receives end to end.
std::uint64_t largest_receive(const std::vector<TraceCall>& calls, const Trace& trace);

// Calls left out of the replay, with why: what the trace's readers skipped, and what the backend
// cannot run (the same answer on every rank: it depends on the call alone).
struct SkippedShare {
  std::string what;    // "AllReduce (custom op 5)", "alltoall of bfloat16"
  std::string reason;
  std::uint64_t calls = 0;  // rank calls, as the readers count them
  std::uint64_t bytes = 0;
};
// Removes every call `why_not` gives a reason for (a send with its receive: both get the same
// answer) and returns the trace's own skipped calls followed by these, each with its reason.
std::vector<SkippedShare> remove_unsupported(Trace& trace, const std::function<std::string(const TraceCall&)>& why_not);

// Where a rank's exchange of sends and receives ends: replay_perf posts consecutive ones together
// (as NCCL's grouped ncclSend/ncclRecv and torch's batch_isend_irecv post theirs) and waits for all
// of them, unless the trace recorded idle time between two (more than kSameExchangeGapUs after the
// previous call's end: the job did something else between them, as a pipeline stage computes
// between its receive and its send). `first` is a send or receive; the exchange is [first, returned).
inline constexpr double kSameExchangeGapUs = 20;
std::size_t exchange_end(const std::vector<TraceCall>& calls, std::size_t first);

// Why the ranks would wait on each other forever as replay_perf issues them (nullopt: they would
// not), as one line. Stricter than sequences_disagree (trace.h), which lets a send go on at once as
// an eager send does: here each collective waits for its group and each exchange (above) waits
// until every receive of its sends and every send of its receives is posted, so two ranks that
// both send before they receive, in separate runs, would hang. Linear in the calls; run after
// check_trace, which has found the calls that disagree.
std::optional<std::string> exchanges_wait_forever(const Trace& trace);

// A hash of what the replay depends on (groups, every rank's calls), so ranks that read different
// files are found before the first call.
std::uint64_t trace_fingerprint(const Trace& trace);

}  // namespace collbench::replay
