#include "workloads/collectives/report/collective_rows.h"

namespace collbench::report {

const RowKindSpec& collective_row_kind() {
  using namespace spec_parts;
  static const RowKindSpec spec{kCollectiveRows.name(), nullptr, {"backend", "algorithm", "dtype", "op", "root", "placement"}, {"bytes"}, "bytes",
     "size (bytes)", kLogSizes, "time_us",
     {{"busbw_gbps", "busbw", "bus bandwidth (GB/s)", kHigherIsBetter},
      {"algbw_gbps", "algbw", "algorithm bandwidth (GB/s)", kHigherIsBetter}},
     kThroughputOfRanks, {}, {}, SummaryForm::kBusBandwidth, nullptr, kCollectiveLayout};
  return spec;
}

// Keyed by the traffic pattern too: a uniform row and a zipf row of one size are different rows.
const RowKindSpec& alltoallv_row_kind() {
  using namespace spec_parts;
  static const RowKindSpec spec{kAlltoallvRows.name(), "alltoallv", {"backend", "algorithm", "dtype", "placement", "traffic.pattern"}, {"bytes"}, "bytes",
     "size (bytes, the busiest rank's)", kLogSizes, "time_us",
     {{"busbw_gbps", "busbw", "bus bandwidth (GB/s)", kHigherIsBetter},
      {"algbw_gbps", "algbw", "algorithm bandwidth (GB/s)", kHigherIsBetter}},
     kThroughputOfRanks,
     // Its live table is nccl-tests' (a collective of the registry); these are collbench table's text columns.
     {{"bytes", "size", Style::kInteger, 0, 12}, {"dtype", "type", Style::kText, 0, 8},
      {"traffic.pattern", "pattern", Style::kText, 0, 12}, {"placement", "place", Style::kText, 0, 5}, kMeanUs,
      {"algbw_gbps", "algbw", Style::kFixed, 2, 8}, {"busbw_gbps", "busbw", Style::kFixed, 2, 8}, kWrong},
     {}, SummaryForm::kBusBandwidth, nullptr, kCollectiveLayout};
  return spec;
}

}  // namespace collbench::report
