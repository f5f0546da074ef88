// scan_perf's row kind, on the report layer (report/row_kind.h): one buffer size per row.
#pragma once

#include "report/row_kind.h"

namespace collbench::report {

inline constexpr RowKind kScanRows{"scan"};
const RowKindSpec& scan_row_kind();

}  // namespace collbench::report
