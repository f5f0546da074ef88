#include "workloads/copy/report/copy_rows.h"

namespace collbench::report {

const RowKindSpec& copy_row_kind() {
  using namespace spec_parts;
  static const RowKindSpec spec{kCopyRows.name(), "copy", {"mode", "memory", "engine", "direction", "src_device", "dst_device"}, {"bytes"}, "bytes",
     "copy size (bytes)", kLogSizes, "time_us", {{"gbps", "gbps", "bandwidth (GB/s)", kHigherIsBetter}},
     kThroughputOfRanks,
     {{"mode", "mode", Style::kText, 0, 8}, {"memory", "memory", Style::kText, 0, 8}, {"engine", "eng", Style::kText, 0, 4},
      {"direction", "dir", Style::kText, 0, 4}, {"src_device", "src", Style::kInteger, 0, 4},
      {"dst_device", "dst", Style::kInteger, 0, 4}, {"bytes", "bytes", Style::kInteger, 0, 12}, kMeanUs, kMinUs, kMaxUs,
      {"gbps", "GB/s", Style::kFixed, 2, 10}, kCacheResident, kWrong}};
  return spec;
}

}  // namespace collbench::report
