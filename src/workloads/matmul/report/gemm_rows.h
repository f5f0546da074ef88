// matmul_perf's row kind, on the report layer (report/row_kind.h): one GEMM shape and dtype per row.
#pragma once

#include "report/row_kind.h"

namespace collbench::report {

inline constexpr RowKind kGemmRows{"gemm"};
const RowKindSpec& gemm_row_kind();

}  // namespace collbench::report
