#include "workloads/pt2pt/report/pt2pt_rows.h"

#include "workloads/pt2pt/report/pt2pt_view.h"

namespace collbench::report {

// pt2pt_perf: OSU's point-to-point tests and the link matrix. time_us is per message for
// latency (half the round trip) and per window iteration for the bandwidth modes.
const RowKindSpec& pt2pt_row_kind() {
  using namespace spec_parts;
  static const RowKindSpec spec{kPointToPointRows.name(), "pt2pt", {"backend", "mode", "link"}, {"bytes"}, "bytes", "message size (bytes)", kLogSizes, "time_us",
     {{"gbps", "gbps", "bandwidth (GB/s)", kHigherIsBetter},
      {"latency_us", "latency_us", "latency (us)", kLowerIsBetter},
      {"messages_per_s", "messages_per_s", "messages/s", kHigherIsBetter},
      {"fan.share_min_gbps", "share_min", "a fan's slowest peer's share (GB/s)", kHigherIsBetter}},
     kThroughputOfRanks,
     // A fan's row: GB/s is the root's aggregate; share_min and share_max its peers' spread.
     {{"link", "link", Style::kText, 0, 17}, {"mode", "mode", Style::kText, 0, 8}, {"bytes", "size", Style::kInteger, 0, 12},
      {"iterations", "iters", Style::kInteger, 0, 8}, {"time_us.mean", "time(us)", Style::kFixed, 2, 12},
      {"latency_us", "lat(us)", Style::kFixed, 2, 12},
      {"gbps", "GB/s", Style::kFixed, 4, 12}, {"messages_per_s", "messages/s", Style::kFixed, 0, 14},
      {"fan.share_min_gbps", "share_min", Style::kFixed, 4, 10}, {"fan.share_max_gbps", "share_max", Style::kFixed, 4, 10}, kWrong},
     {}, SummaryForm::kRate, check_pt2pt_fields};
  return spec;
}

}  // namespace collbench::report
