// ddp_step_perf's row kind, on the report layer (report/row_kind.h): one training step's settings per row.
#pragma once

#include "report/row_kind.h"

namespace collbench::report {

inline constexpr RowKind kDdpStepRows{"ddp_step"};
const RowKindSpec& ddp_step_row_kind();

}  // namespace collbench::report
