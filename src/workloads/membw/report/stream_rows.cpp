#include "workloads/membw/report/stream_rows.h"

namespace collbench::report {

const RowKindSpec& stream_row_kind() {
  using namespace spec_parts;
  static const RowKindSpec spec{kStreamRows.name(), "membw", {"kernel", "device"}, {"bytes"}, "bytes", "array size (bytes)", kLogSizes, "time_us",
     {{"gbps", "gbps", "bandwidth (GB/s)", kHigherIsBetter}},
     kThroughputOfRanks,
     {{"bytes", "bytes/array", Style::kInteger, 0, 14}, {"kernel", "kernel", Style::kText, 0, 8}, kMeanUs, kMinUs, kMaxUs,
      {"gbps", "GB/s", Style::kFixed, 2, 10}, {"percent_of_peak", "%peak", Style::kFixed, 1, 8}, kCacheResident, kSpread,
      kWrong}};
  return spec;
}

}  // namespace collbench::report
