#include "workloads/replay/report/replay_rows.h"

namespace collbench::report {

// replay_perf (issue 61), keyed also by --scale ("none", or "2->4 per-rank": recorded -> replayed ranks, what
// the world's all_gather and the like keep): the whole sequence per cycle (collective "sequence", bytes per pass) and
// one row per (collective, size bucket, dtype, group size), bytes the bucket's 2^k; time_us per call.
const RowKindSpec& replay_row_kind() {
  using namespace spec_parts;
  static const RowKindSpec spec{kReplayRows.name(), "replay", {"backend", "collective", "dtype", "group_size", "gaps", "scale"}, {"bytes"}, "bytes",
     "size bucket (bytes, 2^k of [2^k, 2^(k+1)))", kLogSizes, "time_us",
     {{"busbw_gbps", "busbw", "bus bandwidth (GB/s)", kHigherIsBetter},
      {"algbw_gbps", "algbw", "algorithm bandwidth (GB/s)", kHigherIsBetter},
      {"total_us", "total_us", "the row's calls per pass (us)", kLowerIsBetter}},
     kThroughputOfRanks,
     {{"collective", "collective", Style::kText, 0, 14}, {"dtype", "dtype", Style::kText, 0, 8},
      {"group_size", "group", Style::kInteger, 0, 5}, {"bytes", "bucket", Style::kInteger, 0, 12},
      {"calls", "calls", Style::kInteger, 0, 7}, {"time_us.p50", "p50_us", Style::kFixed, 1, 11}, kMeanUs,
      {"total_us", "total_us", Style::kFixed, 1, 12}, {"busbw_gbps", "busbw", Style::kFixed, 2, 8},
      {"job_call_us", "job_us", Style::kFixed, 1, 10}, kWrong},
     {}, SummaryForm::kRate, nullptr, false,
     // Replay reports kept before --scale replayed the trace as recorded.
     {{"scale", "none"}}};
  return spec;
}

}  // namespace collbench::report
