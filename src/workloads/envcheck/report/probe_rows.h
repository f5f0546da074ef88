// envcheck's row kind, on the report layer (report/row_kind.h): one rank's inventory and probes per row.
#pragma once

#include "report/row_kind.h"

namespace collbench::report {

inline constexpr RowKind kProbeRows{"probe"};
const RowKindSpec& probe_row_kind();

}  // namespace collbench::report
