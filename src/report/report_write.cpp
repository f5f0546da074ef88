// Writing a report: the envelope, the context, the one row writer (row_json) and the summaries a
// run keeps as it adds rows. Reading is report_read.cpp.
#include "report/report_json.h"

#include <cmath>

#include "core/state_probe.h"

namespace collbench::report {

using nlohmann::json;

json stats_to_json(const TimeStats& stats) {
  return {{"min", stats.min}, {"p10", stats.p10}, {"p50", stats.p50}, {"mean", stats.mean}, {"p95", stats.p95},
          {"p99", stats.p99}, {"max", stats.max}, {"stdev", stats.stdev}};
}

json row_json(RowKind kind, json fields, const Measurement& measured) {
  const RowKindSpec& spec = row_kind_spec(kind);
  fields["kind"] = spec.name;
  if (!spec.time_path) return fields;
  fields.update({{"cycle", measured.cycle},
                 {"iterations", measured.iterations},
                 {"warmup_iterations", measured.warmup_iterations},
                 {"time_us", stats_to_json(measured.time_us)},
                 {"check_iterations", measured.check_iterations},
                 {"wrong", json_or_null(measured.wrong)}});
  if (!measured.time_aggregation.empty()) fields["time_aggregation"] = measured.time_aggregation;
  if (measured.time_over_ranks_us) {
    const RankTimeViews& views = *measured.time_over_ranks_us;
    fields["time_over_ranks_us"] = {{"mean", views.mean_us}, {"max", views.max_us}, {"min", views.min_us}};
  }
  if (!measured.timing.empty()) fields["timing"] = measured.timing;
  if (!measured.timestamp.empty()) fields["timestamp"] = measured.timestamp;
  if (!measured.samples_us.empty()) fields["samples_us"] = measured.samples_us;
  return fields;
}

json to_json(const StateProbeRecord& probe) {
  json cpus = json::array();
  if (probe.cpu_a >= 0) cpus = {probe.cpu_a, probe.cpu_b};
  // A tenth of a nanosecond is below the probe's own spread; more digits would only look precise.
  const auto rounded = [](const std::optional<double>& value) {
    return value ? json(std::round(*value * 10) / 10) : json(nullptr);
  };
  const auto bursts = [](ProbeSize size) { return std::to_string(size.bursts) + " bursts of " + std::to_string(size.round_trips); };
  json out = {{"measure", "round trip of one cache line between the two CPUs, ns (median of " + bursts(kRunProbe) + "; between cycles, of " +
                              bursts(kCycleProbe) + ")"},
              {"host", probe.host},
              {"cpus", cpus},
              {"before_ns", rounded(probe.before_ns)},
              {"after_ns", rounded(probe.after_ns)}};
  if (probe.between_cycles_ns) {
    out["between_cycles_ns"] = json::array();
    for (const auto& value : *probe.between_cycles_ns) out["between_cycles_ns"].push_back(rounded(value));
  }
  return out;
}

namespace {

json context_json(const Context& context) {
  json ranks = json::array();
  for (const auto& rank : context.ranks) {
    ranks.push_back({{"rank", rank.rank}, {"host", rank.host}, {"local_rank", rank.local_rank},
                     {"device", rank.device}, {"pid", rank.pid}});
  }
  json out = {{"argv", context.argv},
          {"start_time", context.start_time},
          {"end_time", context.end_time.empty() ? json(nullptr) : json(context.end_time)},
          {"world_size", context.world_size},
          {"hosts", context.hosts},
          {"ranks", ranks},
          {"backend", context.backend},
          {"versions", context.versions},
          {"env", context.env},
          {"options", context.options},
          {"tags", context.tags}};
  if (!context.machine.empty()) out["machine"] = context.machine;
  if (!context.scheduler.empty()) out["scheduler"] = context.scheduler;
  if (context.state_probe) out["state_probe"] = to_json(*context.state_probe);
  return out;
}

}  // namespace

nlohmann::json to_json(const SkippedCase& skipped) {
  json out = skipped.fields.is_object() ? skipped.fields : json::object();
  out["what"] = skipped.what;
  out["reason"] = skipped.reason;
  return out;
}

nlohmann::json envelope_json(const std::string& benchmark, const Context& context) {
  return {{"schema_version", schema_version()}, {"benchmark", benchmark}, {"status", "partial"},
          {"context", context_json(context)}, {"results", json::array()}};
}

// The summary is made from the rows being written, in the kind's form, so a report can never
// disagree with itself whatever the caller kept in report.summary (a kind whose workload writes its
// own keeps it). The kind's own fields go back beside the envelope.
nlohmann::json to_json(const Report& report) {
  json out = envelope_json(report.benchmark, report.context);
  out["schema_version"] = report.schema_version_text;
  out["status"] = report.status;
  RowSummary summary(report.kind);
  for (const Row& row : report.rows) {
    out["results"].push_back(row.fields);
    summary.add(row.fields);
  }
  out["skipped"] = json::array();
  for (const auto& entry : report.skipped) out["skipped"].push_back(to_json(entry));
  out["summary"] = row_kind_spec(report.kind).summary == SummaryForm::kByWorkload ? report.summary : summary.to_json();
  if (!report.error.empty()) out["error"] = report.error;
  for (const auto& [key, value] : report.kind_fields.items()) out[key] = value;
  return out;
}

// ===== Compute and memory throughput reports (matmul_perf, membw_perf, envcheck) ===========
nlohmann::json to_json(const ThroughputSpread& spread, const char* unit) {
  return {{"fastest_rank", spread.fastest_rank},
          {"slowest_rank", spread.slowest_rank},
          {std::string("fastest_") + unit, spread.fastest},
          {std::string("slowest_") + unit, spread.slowest},
          {"ratio", finite_or_null(spread.ratio)}};
}

RowSummary::RowSummary(RowKind kind)
    : form_(row_kind_spec(kind).summary), rate_key_(row_kind_spec(kind).figures.at(0).path), with_spread_(false) {
  for (const TableColumnSpec& column : row_kind_spec(kind).table) {
    with_spread_ = with_spread_ || (form_ == SummaryForm::kRate && std::string(column.path) == "spread.ratio");
  }
}

// Rows as a run writes them always hold what their form reads; a row read from an older report
// may lack a figure, which then counts as a row without it.
void RowSummary::add(const nlohmann::json& row) {
  ++rows_;
  const auto number_at = [&row](const char* key) -> const nlohmann::json* {
    const auto it = row.find(key);
    return it != row.end() && it->is_number() ? &*it : nullptr;
  };
  if (const auto wrong = row.find("wrong"); wrong != row.end() && wrong->is_number_integer()) {
    ++rows_checked_;
    wrong_total_ += wrong->get<std::int64_t>();
  }
  switch (form_) {
    case SummaryForm::kRate:
      if (const auto* rate = number_at(rate_key_.c_str())) max_rate_ = std::max(max_rate_.value_or(0.0), rate->get<double>());
      if (const auto spread = row.find("spread"); with_spread_ && spread != row.end() && spread->is_object()) {
        if (const auto ratio = spread->find("ratio"); ratio != spread->end() && ratio->is_number()) {
          worst_spread_ratio_ = std::max(worst_spread_ratio_.value_or(1.0), ratio->get<double>());
        }
      }
      break;
    case SummaryForm::kBusBandwidth:
      // One rank moves no data: its rows' bus bandwidth is null, and so stay the average and the best.
      if (const auto* busbw = number_at("busbw_gbps")) {
        busbw_total_ += busbw->get<double>();
        ++busbw_rows_;
        max_rate_ = std::max(max_rate_.value_or(0.0), busbw->get<double>());
      }
      break;
    case SummaryForm::kSlowestCommunicator: {
      const auto time = row.find("time_us");
      const auto method = row.find("method");
      const auto size = row.find("comm_size");
      if (time == row.end() || !time->is_object() || method == row.end() || !method->is_string() || size == row.end() ||
          !size->is_number_integer()) {
        break;
      }
      if (const double mean = time->value("mean", 0.0); mean > slowest_mean_us_) {
        slowest_mean_us_ = mean;
        slowest_ = method->get<std::string>() + " at " + std::to_string(size->get<int>()) + " ranks";
      }
      break;
    }
    case SummaryForm::kByWorkload:
      break;
  }
}

nlohmann::json RowSummary::to_json() const {
  switch (form_) {
    case SummaryForm::kRate: {
      json out = {{"rows", rows_}, {"rows_checked", rows_checked_}, {"wrong_total", wrong_total_},
                  {"max_" + rate_key_, json_or_null(max_rate_)}};
      if (with_spread_) out["worst_spread_ratio"] = json_or_null(worst_spread_ratio_);
      return out;
    }
    case SummaryForm::kBusBandwidth:
      return {{"avg_busbw_gbps", busbw_rows_ > 0 ? json(busbw_total_ / busbw_rows_) : json(nullptr)},
              {"max_busbw_gbps", json_or_null(max_rate_)},
              {"wrong_total", wrong_total_},
              {"rows", rows_},
              {"rows_checked", rows_checked_}};
    case SummaryForm::kSlowestCommunicator:
      return {{"rows", rows_}, {"slowest", slowest_.empty() ? json(nullptr) : json(slowest_)},
              {"slowest_mean_us", rows_ > 0 ? json(slowest_mean_us_) : json(nullptr)}};
    case SummaryForm::kByWorkload:
      break;
  }
  return nullptr;
}

}  // namespace collbench::report
