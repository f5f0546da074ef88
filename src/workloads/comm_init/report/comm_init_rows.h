// comm_init_perf's row kind, on the report layer (report/row_kind.h): one way and communicator size per row.
#pragma once

#include "report/row_kind.h"

namespace collbench::report {

inline constexpr RowKind kCommInitRows{"comm_init"};
const RowKindSpec& comm_init_row_kind();

}  // namespace collbench::report
