#include "report/report.h"

#include <stdexcept>

namespace collbench::report {

std::vector<double> StateProbeRecord::values() const {
  std::vector<double> made;
  for (const auto& value : {before_ns, after_ns}) {
    if (value) made.push_back(*value);
  }
  return made;
}

std::vector<std::optional<double>> StateProbeRecord::in_order() const {
  std::vector<std::optional<double>> probes{before_ns};
  if (between_cycles_ns) probes.insert(probes.end(), between_cycles_ns->begin(), between_cycles_ns->end());
  probes.push_back(after_ns);
  return probes;
}

std::string schema_version() { return std::to_string(kSchemaMajor) + "." + std::to_string(kSchemaMinor); }

// Every registered kind's spec (registered_row_kinds, generated from COLLBENCH_KINDS), searched
// in place: a handful of kinds, each lookup a few name comparisons.
const RowKindSpec& row_kind_spec(RowKind kind) {
  for (const RowKindSpec* spec : registered_row_kinds()) {
    if (spec->kind() == kind) return *spec;
  }
  throw std::logic_error(std::string("row kind '") + kind.name() + "' is not registered (COLLBENCH_KINDS, CMakeLists.txt)");
}

const RowKindSpec* find_row_kind(std::string_view name) {
  for (const RowKindSpec* spec : registered_row_kinds()) {
    if (name == spec->name) return spec;
  }
  return nullptr;
}

bool has_collective_rows(RowKind kind) { return row_kind_spec(kind).collective_layout; }

RowKind row_kind_of_benchmark(std::string_view benchmark) {
  for (const RowKindSpec* spec : registered_row_kinds()) {
    if (spec->benchmark && benchmark == spec->benchmark) return spec->kind();
  }
  return RowKind();  // the collectives': every collective's program names its collective
}

}  // namespace collbench::report
