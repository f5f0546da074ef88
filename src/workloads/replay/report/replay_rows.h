// replay_perf's row kind, on the report layer (report/row_kind.h): the whole sequence per cycle and
// one row per (collective, size bucket, dtype, group size) of a replayed trace (issue 61).
#pragma once

#include "report/row_kind.h"

namespace collbench::report {

inline constexpr RowKind kReplayRows{"replay"};
const RowKindSpec& replay_row_kind();

}  // namespace collbench::report
