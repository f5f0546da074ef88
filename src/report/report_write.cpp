// Writing a report: the envelope, the context, the one row writer (row_json) and the summaries a
// run keeps as it adds rows. Reading is report_read.cpp.
#include "report/report_json.h"

#include <cmath>

namespace collbench::report {

using nlohmann::json;

json stats_to_json(const TimeStats& stats) {
  return {{"min", stats.min}, {"p10", stats.p10}, {"p50", stats.p50}, {"mean", stats.mean}, {"p95", stats.p95},
          {"p99", stats.p99}, {"max", stats.max}, {"stdev", stats.stdev}};
}

json row_json(RowKind kind, json fields, const Measurement& measured) {
  fields["kind"] = row_kind_spec(kind).name;
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

nlohmann::json to_json(const ResultRow& row) {
  json out = {
      {"bytes", row.bytes},
      {"requested_bytes", row.requested_bytes},
      {"count", row.count},
      {"dtype", row.dtype},
      {"op", row.op},
      {"root", row.root},
      {"placement", row.placement},
      {"backend", row.backend},
      {"algorithm", row.algorithm},
      {"algbw_gbps", row.algbw_gbps},
      {"bus_bandwidth_factor", row.bus_bandwidth_factor},
      {"busbw_gbps", json_or_null(row.busbw_gbps)},
      {"bitdiff", json_or_null(row.bitdiff)},
  };
  if (row.bitwise_repeats > 0) out["bitwise_repeats"] = row.bitwise_repeats;
  if (!row.bitwise_hash.empty()) out["bitwise_hash"] = row.bitwise_hash;
  if (!row.first_bitdiff.empty()) {
    json differences = json::array();
    for (const BitwiseDifference& d : row.first_bitdiff) {
      differences.push_back({{"between", d.between}, {"elements", d.elements}, {"rank", d.rank}, {"repeat", d.repeat},
                             {"reference_rank", d.reference_rank}, {"reference_repeat", d.reference_repeat},
                             {"element", d.element}, {"reference_bits", d.reference_bits}, {"bits", d.bits}});
    }
    out["first_bitdiff"] = differences;
  }
  if (row.calls_per_iteration != 1) out["calls_per_iteration"] = row.calls_per_iteration;
  if (row.issue_us) out["issue_us"] = *row.issue_us;
  if (row.library_estimate_us) out["library_estimate_us"] = *row.library_estimate_us;
  if (!row.traffic) return row_json(RowKind::kCollective, std::move(out), row);
  const TrafficRow& traffic = *row.traffic;
  out["traffic"] = {{"pattern", traffic.pattern},
                    {"seed", traffic.seed},
                    {"bytes_per_rank", traffic.bytes_per_rank},
                    {"max_send_bytes", traffic.max_send_bytes},
                    {"min_send_bytes", traffic.min_send_bytes},
                    {"max_receive_bytes", traffic.max_receive_bytes},
                    {"min_receive_bytes", traffic.min_receive_bytes},
                    {"total_bytes", traffic.total_bytes},
                    {"largest_pair_bytes", traffic.largest_pair_bytes}};
  if (!traffic.matrix_file.empty()) out["traffic"]["matrix_file"] = traffic.matrix_file;
  return row_json(RowKind::kAlltoallv, std::move(out), row);
}

json to_json(const StateProbeRecord& probe) {
  json cpus = json::array();
  if (probe.cpu_a >= 0) cpus = {probe.cpu_a, probe.cpu_b};
  // A tenth of a nanosecond is below the probe's own spread; more digits would only look precise.
  const auto rounded = [](const std::optional<double>& value) {
    return value ? json(std::round(*value * 10) / 10) : json(nullptr);
  };
  return {{"measure", "round trip of one cache line between the two CPUs, ns (median of 5 bursts of 2000)"},
          {"host", probe.host},
          {"cpus", cpus},
          {"before_ns", rounded(probe.before_ns)},
          {"after_ns", rounded(probe.after_ns)}};
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
  return {{"dtype", skipped.dtype}, {"op", skipped.op}, {"placement", skipped.placement}, {"reason", skipped.reason}};
}

nlohmann::json envelope_json(const std::string& benchmark, const Context& context) {
  return {{"schema_version", schema_version()}, {"benchmark", benchmark}, {"status", "partial"},
          {"context", context_json(context)}, {"results", json::array()}};
}

// The summary is recomputed from the rows being written, so a report can never disagree with
// itself whatever the caller kept in report.summary.
nlohmann::json to_json(const Report& report) {
  json results = json::array();
  for (const auto& row : report.results) results.push_back(to_json(row));
  json skipped = json::array();
  for (const auto& entry : report.skipped) skipped.push_back(to_json(entry));
  json out = envelope_json(report.benchmark, report.context);
  out["schema_version"] = report.schema_version_text;
  out["status"] = report.status;
  out["results"] = results;
  out["skipped"] = skipped;
  RowSummary summary(RowKind::kCollective);
  for (const json& row : results) summary.add(row);
  out["summary"] = summary.to_json();
  if (!report.error.empty()) out["error"] = report.error;
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

void RowSummary::add(const nlohmann::json& row) {
  ++rows_;
  if (const auto wrong = row.find("wrong"); wrong != row.end() && !wrong->is_null()) {
    ++rows_checked_;
    wrong_total_ += wrong->get<std::int64_t>();
  }
  switch (form_) {
    case SummaryForm::kRate:
      max_rate_ = std::max(max_rate_.value_or(0.0), row[rate_key_].get<double>());
      if (const auto spread = row.find("spread"); with_spread_ && spread != row.end() && (*spread)["ratio"].is_number()) {
        worst_spread_ratio_ = std::max(worst_spread_ratio_.value_or(1.0), (*spread)["ratio"].get<double>());
      }
      break;
    case SummaryForm::kBusBandwidth:
      // One rank moves no data: its rows' bus bandwidth is null, and so stay the average and the best.
      if (const auto busbw = row.find("busbw_gbps"); busbw != row.end() && busbw->is_number()) {
        busbw_total_ += busbw->get<double>();
        ++busbw_rows_;
        max_rate_ = std::max(max_rate_.value_or(0.0), busbw->get<double>());
      }
      break;
    case SummaryForm::kSlowestCommunicator:
      if (const double mean = row["time_us"]["mean"].get<double>(); mean > slowest_mean_us_) {
        slowest_mean_us_ = mean;
        slowest_ = row["method"].get<std::string>() + " at " + std::to_string(row["comm_size"].get<int>()) + " ranks";
      }
      break;
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
