// copy_perf's row kind, on the report layer (report/row_kind.h): one copy mode, memory and size per row.
#pragma once

#include "report/row_kind.h"

namespace collbench::report {

inline constexpr RowKind kCopyRows{"copy"};
const RowKindSpec& copy_row_kind();

}  // namespace collbench::report
