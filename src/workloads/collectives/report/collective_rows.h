// The collectives' row kinds, on the report layer (report/row_kind.h): a collective of the registry's
// rows and alltoallv's, whose rows add the traffic; both in nccl-tests' layout.
#pragma once

#include "report/row_kind.h"

namespace collbench::report {

inline constexpr RowKind kCollectiveRows{"collective"};
const RowKindSpec& collective_row_kind();
inline constexpr RowKind kAlltoallvRows{"alltoallv"};
const RowKindSpec& alltoallv_row_kind();

}  // namespace collbench::report
