#include "report/report.h"

#include <algorithm>

namespace collbench::report {

std::string schema_version() { return std::to_string(kSchemaMajor) + "." + std::to_string(kSchemaMinor); }

Summary summarize_rows(const std::vector<ResultRow>& rows) {
  Summary summary;
  summary.rows = static_cast<int>(rows.size());
  double busbw_total = 0;
  int busbw_rows = 0;
  for (const auto& row : rows) {
    if (row.busbw_gbps) {
      busbw_total += *row.busbw_gbps;
      ++busbw_rows;
      summary.max_busbw_gbps = std::max(summary.max_busbw_gbps.value_or(0.0), *row.busbw_gbps);
    }
    if (row.wrong) {
      summary.wrong_total += *row.wrong;
      ++summary.rows_checked;
    }
  }
  if (busbw_rows > 0) summary.avg_busbw_gbps = busbw_total / busbw_rows;
  return summary;
}

}  // namespace collbench::report
