#include "scan_rows.h"

namespace collbench::report {

// What identifies a scan row, where it sits, what it measures and how its table looks.
const RowKindSpec& scan_row_kind() {
  using namespace spec_parts;
  static const RowKindSpec spec{kScanRows.name(), "scan", {"device"}, {"bytes"}, "bytes", "buffer size (bytes)", kLogSizes, "time_us",
                                {{"gbps", "gbps", "bytes read (GB/s)", kHigherIsBetter}},
                                kThroughputOfRanks,
                                {{"bytes", "bytes", Style::kInteger, 0, 12}, kMeanUs, kMinUs, kMaxUs, {"gbps", "GB/s", Style::kFixed, 2, 10}, kWrong}};
  return spec;
}

}  // namespace collbench::report
