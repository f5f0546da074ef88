// pt2pt_perf's row kind, on the report layer (report/row_kind.h): one mode, link and message size per row.
#pragma once

#include "report/row_kind.h"

namespace collbench::report {

inline constexpr RowKind kPointToPointRows{"pt2pt"};
const RowKindSpec& pt2pt_row_kind();

}  // namespace collbench::report
