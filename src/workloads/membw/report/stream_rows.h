// membw_perf's row kind, on the report layer (report/row_kind.h): one STREAM kernel and array size per row.
#pragma once

#include "report/row_kind.h"

namespace collbench::report {

inline constexpr RowKind kStreamRows{"stream"};
const RowKindSpec& stream_row_kind();

}  // namespace collbench::report
