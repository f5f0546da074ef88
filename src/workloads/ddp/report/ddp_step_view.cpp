#include "workloads/ddp/report/ddp_step_view.h"

#include "report/json_reader.h"
#include "workloads/ddp/report/ddp_step_rows.h"

namespace collbench::report {

using nlohmann::json;

// What a ddp_step row holds beyond the generic row (its bucket schedule, compute split and batch).
// Fields an older report lacks stay at their defaults; a field of the wrong type is an error.
std::vector<DdpStepRow> ddp_rows_from_json(const nlohmann::json& document) {
  const Report envelope = report_from_json(document);
  if (envelope.kind != kDdpStepRows) {
    throw ReportFormatError("report: holds " + std::string(row_kind_spec(envelope.kind).name) + " rows, not ddp_step rows");
  }
  const Reader reader("report");
  const auto integer_or = [](const Reader& r, const json& object, const char* key, std::int64_t fallback) {
    return object.contains(key) && !object[key].is_null() ? r.integer(object, key) : fallback;
  };
  const auto number_or = [](const Reader& r, const json& object, const char* key, double fallback) {
    return object.contains(key) && !object[key].is_null() ? r.non_negative(object, key) : fallback;
  };
  const auto text_or = [](const Reader& r, const json& object, const char* key, const std::string& fallback) {
    return object.contains(key) && !object[key].is_null() ? r.string(object, key) : fallback;
  };
  const RowKindSpec& spec = row_kind_spec(kDdpStepRows);
  // A figure by its name now, or by its former name in a report before schema 2.4.
  const auto figure_or = [&spec](const Reader& r, const json& object, const char* key, std::optional<double> fallback) {
    const json* value = find_row_field(object, spec, key);
    if (!value || value->is_null()) return fallback;
    if (!value->is_number() || !(value->get<double>() >= 0)) r.fail(std::string(".") + key, "expected a non-negative number or null");
    return std::optional<double>(value->get<double>());
  };
  std::vector<DdpStepRow> rows;
  const json& results = document.at("results");
  for (std::size_t i = 0; i < results.size(); ++i) {
    const Reader r = reader.at(".results[" + std::to_string(i) + "]");
    const json& object = results[i];
    DdpStepRow row;
    row.model = text_or(r, object, "model", "");
    row.backend = text_or(r, object, "backend", "");
    row.device = text_or(r, object, "device", "cpu");
    row.scaling = text_or(r, object, "scaling", "weak");
    row.batch = static_cast<int>(integer_or(r, object, "batch", 0));
    row.global_batch = static_cast<int>(integer_or(r, object, "global_batch", 0));
    row.bucket_mb = number_or(r, object, "bucket_mb", 0);
    row.first_bucket_mb = number_or(r, object, "first_bucket_mb", 0);
    row.overlap = text_or(r, object, "overlap", "");
    row.grad_dtype = text_or(r, object, "grad_dtype", "");
    row.accumulate = static_cast<int>(integer_or(r, object, "accumulate", 1));
    row.compute_scale = number_or(r, object, "compute_scale", 1);
    read_measurement(r, object, row);
    row.forward_us = number_or(r, object, "forward_us", 0);
    row.backward_compute_us = number_or(r, object, "backward_compute_us", 0);
    row.compute_us = number_or(r, object, "compute_us", 0);
    row.comm_us = number_or(r, object, "comm_us", 0);
    row.compute_alone_us = number_or(r, object, "compute_alone_us", 0);
    row.comm_alone_us = number_or(r, object, "comm_alone_us", 0);
    row.compute_alone = text_or(r, object, "compute_alone", "");
    row.exposed_us = number_or(r, object, "exposed_us", 0);
    row.compute_slowdown = figure_or(r, object, "compute_slowdown", std::nullopt);
    row.hidden_fraction = figure_or(r, object, "hidden_fraction", std::nullopt);
    row.exposed_inside_step_us = figure_or(r, object, "exposed_inside_step_us", 0.0).value_or(0.0);
    row.hidden_inside_step_fraction = figure_or(r, object, "hidden_inside_step_fraction", std::nullopt);
    row.comm_compute_ratio = figure_or(r, object, "comm_compute_ratio", std::nullopt);
    row.comm_cores = static_cast<int>(integer_or(r, object, "comm_cores", 0));
    row.buckets = static_cast<int>(integer_or(r, object, "buckets", 0));
    row.allreduce_calls = static_cast<int>(integer_or(r, object, "allreduce_calls", 0));
    row.allreduce_bytes = object.contains("allreduce_bytes") ? r.unsigned_integer(object, "allreduce_bytes") : 0;
    row.samples_per_s = number_or(r, object, "samples_per_s", 0);
    rows.push_back(row);
  }
  return rows;
}

std::vector<DdpStepRow> read_ddp_rows(const std::string& path) { return read_from_file(path, ddp_rows_from_json); }

}  // namespace collbench::report
