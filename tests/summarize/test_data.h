// Helpers the summarizer's test files share (one definition, so the files can compile as one unity
// batch): the path of a fixture under tests/data/summarize, and a row with its JSON changed.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "report/report_json.h"
#include "workloads/collectives/report/collective_rows.h"

namespace collbench::summarize {

inline std::string data(const std::string& name) { return std::string(COLLBENCH_SUMMARIZE_DATA) + "/" + name; }

// `row` with its JSON changed by `change`, read again as the reader reads a collective row.
inline report::Row changed(const report::Row& row, const std::function<void(nlohmann::json&)>& change) {
  nlohmann::json fields = row.fields;
  change(fields);
  return report::row_from_json(fields, report::kCollectiveRows);
}

}  // namespace collbench::summarize
