// Reading a report: every kind's rows through the row-kind table, validated field by field, so a
// bad file gets one sentence naming the key path. Writing is report_write.cpp.
#include "report/report_json.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>

#include "core/error.h"
#include "core/input_file.h"
#include "report/group_view.h"
#include "report/json_reader.h"

namespace collbench::report {

using nlohmann::json;

namespace {

TimeStats stats_from_json(const Reader& reader, const json& object) {
  TimeStats stats;
  stats.min = reader.non_negative(object, "min");
  // Reports before p10 was kept lack it: the minimum stands in (compare says when it falls back).
  stats.p10 = object.contains("p10") ? reader.non_negative(object, "p10") : stats.min;
  stats.p50 = reader.non_negative(object, "p50");
  stats.mean = reader.non_negative(object, "mean");
  stats.p95 = reader.non_negative(object, "p95");
  stats.p99 = reader.non_negative(object, "p99");
  stats.max = reader.non_negative(object, "max");
  stats.stdev = reader.non_negative(object, "stdev");
  if (stats.min > stats.max) reader.fail("", "min is larger than max");
  return stats;
}

std::vector<double> samples_from_json(const Reader& reader, const json& object) {
  std::vector<double> samples;
  if (const auto it = object.find("samples_us"); it != object.end()) {
    if (!it->is_array()) reader.fail(".samples_us", "expected an array of numbers");
    for (std::size_t i = 0; i < it->size(); ++i) {
      const json& sample = (*it)[i];
      if (!sample.is_number() || !std::isfinite(sample.get<double>()) || sample.get<double>() < 0) {
        reader.fail(".samples_us[" + std::to_string(i) + "]", "expected a non-negative number");
      }
      samples.push_back(sample.get<double>());
    }
  }
  return samples;
}

}  // namespace

// What every typed row reads the same way; keys an older report lacks keep their defaults.
void read_measurement(const Reader& reader, const json& object, Measurement& measured) {
  measured.cycle = object.contains("cycle") ? static_cast<int>(reader.integer(object, "cycle")) : 1;
  measured.iterations = static_cast<int>(reader.integer(object, "iterations"));
  if (measured.iterations < 1) reader.fail(".iterations", "must be at least 1");
  measured.warmup_iterations = object.contains("warmup_iterations") ? static_cast<int>(reader.integer(object, "warmup_iterations")) : 0;
  measured.time_aggregation = object.contains("time_aggregation") ? reader.string(object, "time_aggregation") : "max";
  measured.time_us = stats_from_json(reader.at(".time_us"), reader.field(object, "time_us"));
  if (object.contains("time_over_ranks_us")) {
    const json& views = reader.field(object, "time_over_ranks_us");
    if (!views.is_object()) reader.fail(".time_over_ranks_us", "expected an object with mean, max and min");
    const Reader inner = reader.at(".time_over_ranks_us");
    measured.time_over_ranks_us = RankTimeViews{inner.non_negative(views, "mean"), inner.non_negative(views, "max"),
                                                inner.non_negative(views, "min")};
  }
  if (object.contains("timing")) measured.timing = reader.string(object, "timing");
  measured.check_iterations = object.contains("check_iterations") ? static_cast<int>(reader.integer(object, "check_iterations")) : 0;
  if (object.contains("wrong") && !object["wrong"].is_null()) measured.wrong = reader.integer(object, "wrong");
  if (object.contains("timestamp")) measured.timestamp = reader.string(object, "timestamp");
  measured.samples_us = samples_from_json(reader, object);
}

namespace {

Row generic_row(const Reader& reader, const json& object, const RowKindSpec& spec);

// A grouped row's groups and aggregate, checked as read: `collbench table` prints them.
void check_groups(const Reader& reader, const json& object, const RowKindSpec& spec) {
  const json& groups = reader.field(object, "groups");
  if (!groups.is_array() || groups.empty()) reader.fail(".groups", "expected an array of groups");
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const Reader inner = reader.at(".groups[" + std::to_string(i) + "]");
    const json& group = groups[i];
    if (!group.is_object()) inner.fail("", "expected an object");
    inner.integer(group, "id");
    for (const char* list : {"ranks", "hosts"}) {
      const json& items = inner.field(group, list);
      if (!items.is_array() || items.empty()) inner.fail(std::string(".") + list, "expected a non-empty array");
      for (const json& item : items) {
        if (list == std::string("ranks") ? !item.is_number_integer() : !item.is_string()) inner.fail(std::string(".") + list, "expected rank numbers and host names");
      }
    }
    inner.unsigned_integer(group, "bytes");
    inner.at(".time_us").non_negative(inner.field(group, "time_us"), "mean");
    inner.non_negative(group, "algbw_gbps");
    inner.non_negative(group, "busbw_gbps");
    // The summarizer reads each group as a row of its own (compare, history, plot): its view must
    // read as one, its time statistics whole and positive.
    generic_row(inner, group_row_view(object, i), spec);
  }
  const json& aggregate = reader.field(object, "aggregate");
  const Reader inner = reader.at(".aggregate");
  if (!aggregate.is_object()) inner.fail("", "expected an object");
  inner.unsigned_integer(aggregate, "bytes_total");
  for (const char* key : {"time_us", "algbw_gbps", "busbw_sum_gbps"}) inner.non_negative(aggregate, key);
}

// What a collective row holds beyond the generic row, checked as read: nccl-tests' table, the
// model and health then read its fields without checks of their own.
void check_collective_row(const Reader& reader, const json& object, const RowKindSpec& spec) {
  reader.unsigned_integer(object, "bytes");
  if (object.contains("requested_bytes")) reader.unsigned_integer(object, "requested_bytes");
  reader.unsigned_integer(object, "count");
  reader.string(object, "dtype");
  reader.string(object, "op");
  reader.integer(object, "root");
  const std::string placement = reader.string(object, "placement");
  if (placement != "out" && placement != "in") reader.fail(".placement", "expected \"out\" or \"in\"");
  reader.string(object, "backend");
  reader.string(object, "algorithm");
  reader.field(object, "wrong");  // a collective row always says whether it was checked
  Measurement measured;
  read_measurement(reader, object, measured);
  reader.non_negative(object, "algbw_gbps");
  if (object.contains("bus_bandwidth_factor")) reader.non_negative(object, "bus_bandwidth_factor");
  reader.optional_number(object, "busbw_gbps");
  // -B: absent in reports from before it, null where not checked.
  if (object.contains("bitdiff") && !object["bitdiff"].is_null()) reader.integer(object, "bitdiff");
  if (object.contains("bitwise_hash")) reader.string(object, "bitwise_hash");
  if (object.contains("bitwise_repeats")) reader.integer(object, "bitwise_repeats");
  // 2.9: concurrent groups (issue 62), each group's figures and the aggregate beside the headline.
  if (object.contains("groups")) check_groups(reader, object, spec);
  if (object.contains("first_bitdiff")) {
    const json& differences = reader.field(object, "first_bitdiff");
    if (!differences.is_array()) reader.fail(".first_bitdiff", "expected an array of differences");
    for (std::size_t i = 0; i < differences.size(); ++i) {
      const Reader inner = reader.at(".first_bitdiff[" + std::to_string(i) + "]");
      const json& d = differences[i];
      if (!d.is_object()) inner.fail("", "expected an object");
      const std::string between = inner.string(d, "between");
      if (between != "repeats" && between != "ranks") inner.fail(".between", "expected \"repeats\" or \"ranks\"");
      for (const char* key : {"elements", "rank", "repeat", "reference_rank", "reference_repeat"}) inner.integer(d, key);
      inner.unsigned_integer(d, "element");
      inner.string(d, "reference_bits");
      inner.string(d, "bits");
    }
  }
  if (object.contains("traffic")) {
    const Reader inner = reader.at(".traffic");
    const json& traffic = reader.field(object, "traffic");
    if (!traffic.is_object()) reader.fail(".traffic", "expected an object");
    inner.string(traffic, "pattern");
    if (traffic.contains("matrix_file")) inner.string(traffic, "matrix_file");
    for (const char* key : {"seed", "bytes_per_rank", "max_send_bytes", "min_send_bytes", "max_receive_bytes",
                            "min_receive_bytes", "total_bytes", "largest_pair_bytes"}) {
      inner.unsigned_integer(traffic, key);
    }
  }
  if (object.contains("calls_per_iteration") && static_cast<int>(reader.integer(object, "calls_per_iteration")) < 1) {
    reader.fail(".calls_per_iteration", "must be at least 1");
  }
  reader.optional_number(object, "issue_us");
  reader.optional_number(object, "library_estimate_us");
}

// Reports of other kinds than collectives may lack the fields only collectives need: copy-1.0
// reports have neither world_size nor backend (copy_perf is one process).
Context context_from_json(const Reader& reader, const json& object, bool collective) {
  Context context;
  if (const auto it = object.find("argv"); it != object.end() && it->is_array()) {
    for (const auto& arg : *it) {
      if (arg.is_string()) context.argv.push_back(arg.get<std::string>());
    }
  }
  context.start_time = object.contains("start_time") ? reader.string(object, "start_time") : "";
  context.end_time = object.contains("end_time") && object["end_time"].is_string() ? reader.string(object, "end_time") : "";
  // Checked as read, before narrowing: 2^40 would wrap to 0 and be called "less than 1".
  const std::int64_t world_size = collective || object.contains("world_size") ? reader.integer(object, "world_size") : 1;
  if (world_size < 1) reader.fail(".world_size", "must be at least 1");
  if (world_size > std::numeric_limits<int>::max()) reader.fail(".world_size", "out of range (at most " + std::to_string(std::numeric_limits<int>::max()) + ")");
  context.world_size = static_cast<int>(world_size);
  if (const auto it = object.find("hosts"); it != object.end()) {
    if (!it->is_array()) reader.fail(".hosts", "expected an array of strings");
    for (const auto& host : *it) {
      if (!host.is_string()) reader.fail(".hosts", "expected an array of strings");
      context.hosts.push_back(host.get<std::string>());
    }
  }
  if (const auto it = object.find("ranks"); it != object.end()) {
    if (!it->is_array()) reader.fail(".ranks", "expected an array");
    for (std::size_t i = 0; i < it->size(); ++i) {
      const Reader rank_reader = reader.at(".ranks[" + std::to_string(i) + "]");
      const json& entry = (*it)[i];
      RankInfo info;
      info.rank = static_cast<int>(rank_reader.integer(entry, "rank"));
      info.host = rank_reader.string(entry, "host");
      info.local_rank = static_cast<int>(rank_reader.integer(entry, "local_rank"));
      info.device = rank_reader.string(entry, "device");
      info.pid = entry.contains("pid") ? rank_reader.integer(entry, "pid") : 0;
      context.ranks.push_back(info);
    }
  }
  context.backend = collective || object.contains("backend") ? reader.string(object, "backend") : "";
  context.versions = reader.string_map(object, "versions");
  context.env = reader.string_map(object, "env");
  if (const auto it = object.find("options"); it != object.end()) {
    if (!it->is_object()) reader.fail(".options", "expected an object");
    context.options = *it;
  }
  context.tags = reader.string_map(object, "tags");
  // The machine block (reports before it have none): kept as written, compared field by field.
  if (const auto it = object.find("machine"); it != object.end()) {
    if (!it->is_object()) reader.fail(".machine", "expected an object");
    context.machine = *it;
  }
  context.scheduler = reader.string_map(object, "scheduler");
  if (const auto it = object.find("state_probe"); it != object.end()) {
    const Reader probe_reader = reader.at(".state_probe");
    if (!it->is_object()) probe_reader.fail("", "expected an object");
    StateProbeRecord probe;
    if (it->contains("host")) probe.host = probe_reader.string(*it, "host");
    if (const auto cpus = it->find("cpus"); cpus != it->end()) {
      if (!cpus->is_array() || (!cpus->empty() && cpus->size() != 2)) probe_reader.fail(".cpus", "expected two CPU numbers or none");
      if (cpus->size() == 2) {
        if (!(*cpus)[0].is_number_integer() || !(*cpus)[1].is_number_integer()) probe_reader.fail(".cpus", "expected two CPU numbers or none");
        probe.cpu_a = (*cpus)[0].get<int>();
        probe.cpu_b = (*cpus)[1].get<int>();
      }
    }
    // A probe is a time: a value that is not positive is refused, not read as "no state".
    for (const auto& [key, value] : {std::pair{"before_ns", &probe.before_ns}, std::pair{"after_ns", &probe.after_ns}}) {
      *value = probe_reader.optional_number(*it, key);
      if (*value && !(**value > 0)) probe_reader.fail(std::string(".") + key, "must be a positive number of ns, or null");
    }
    if (const auto between = it->find("between_cycles_ns"); between != it->end()) {
      if (!between->is_array()) probe_reader.fail(".between_cycles_ns", "expected an array of positive numbers of ns or nulls");
      probe.between_cycles_ns.emplace();
      for (const json& value : *between) {
        if (!value.is_null() && !(value.is_number() && value.get<double>() > 0)) {
          probe_reader.fail(".between_cycles_ns", "expected an array of positive numbers of ns or nulls");
        }
        probe.between_cycles_ns->push_back(value.is_null() ? std::nullopt : std::optional<double>(value.get<double>()));
      }
    }
    context.state_probe = probe;
  }
  return context;
}

// A dotted path ("probes.triad_gbps") into a row; nullptr when any step is missing.
const json* find_path(const json& object, const std::string& path) {
  const json* at = &object;
  std::size_t start = 0;
  while (true) {
    const auto dot = path.find('.', start);
    const std::string step = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!at->is_object()) return nullptr;
    const auto it = at->find(step);
    if (it == at->end()) return nullptr;
    at = &*it;
    if (dot == std::string::npos) return at;
    start = dot + 1;
  }
}

}  // namespace

// `path` in a row of the kind `spec`, or where an older report kept it (RowKindSpec::former_names).
const json* find_row_field(const json& object, const RowKindSpec& spec, const std::string& path) {
  if (const json* value = find_path(object, path)) return value;
  for (const auto& [now, before] : spec.former_names) {
    if (path == now) return find_path(object, before);
  }
  return nullptr;
}

namespace {

std::string key_text(const Reader& reader, const json& value, const std::string& path) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_integer()) return std::to_string(value.get<std::int64_t>());
  if (value.is_boolean() || value.is_number()) return value.dump();
  reader.fail("." + path, "expected a string or a number");
}

// The one generic row path: what identifies the row, where it sits, what it measured, all read
// through the kind's spec. Times must be positive: a zero-time baseline would compare as SAME.
Row generic_row(const Reader& reader, const json& object, const RowKindSpec& spec) {
  if (!object.is_object()) reader.fail("", "expected an object");
  Row row;
  row.kind = spec.kind();
  auto required = [&](const std::string& path) -> const json& {
    const json* value = find_path(object, path);
    if (!value) reader.fail("." + path, "missing");
    return *value;
  };
  for (const char* path : spec.key_fields) {
    const auto by_default = std::find_if(spec.key_defaults.begin(), spec.key_defaults.end(),
                                         [path](const auto& entry) { return std::string_view(entry.first) == path; });
    if (by_default != spec.key_defaults.end() && !find_path(object, path)) {
      row.keys.emplace_back(path, by_default->second);
      continue;
    }
    row.keys.emplace_back(path, key_text(reader, required(path), path));
  }
  row.size = 1;
  for (const char* path : spec.size_fields) {
    const json& value = required(path);
    if (!value.is_number_integer() || value.get<std::int64_t>() < 0) reader.fail(std::string(".") + path, "expected a non-negative integer");
    row.size *= value.get<std::uint64_t>();
    row.size_text += (row.size_text.empty() ? "" : "x") + std::to_string(value.get<std::uint64_t>());
  }
  if (spec.time_path) {
    const json& stats = required(spec.time_path);
    const Reader stats_reader = reader.at(std::string(".") + spec.time_path);
    for (const char* statistic : {"min", "p10", "p50", "mean", "p95", "p99", "max"}) {
      // copy-1.0 kept four statistics, and reports before p10 have none.
      if (stats.is_object() && !stats.contains(statistic) && std::string(statistic) != "mean") continue;
      const double value = stats_reader.number(stats, statistic);
      if (value <= 0) stats_reader.fail(std::string(".") + statistic, "time must be positive");
      row.time_statistics[statistic] = value;
    }
    row.time_us = stats_reader.number(stats, "mean");
    if (const json* iterations = find_path(object, "iterations"); iterations && iterations->is_number_integer()) {
      row.iterations = iterations->get<std::int64_t>();
    }
  }
  for (const auto& figure : spec.figures) {
    const json* value = find_row_field(object, spec, figure.path);
    if (!value || value->is_null()) {
      row.figures.emplace_back();
      continue;
    }
    if (!value->is_number() || !std::isfinite(value->get<double>()) || value->get<double>() < 0) {
      reader.fail(std::string(".") + figure.path, "expected a non-negative number or null");
    }
    row.figures.emplace_back(value->get<double>());
  }
  if (const json* wrong = find_path(object, "wrong"); wrong && !wrong->is_null()) row.wrong = reader.integer(object, "wrong");
  if (object.contains("cycle")) {
    const std::int64_t cycle = reader.integer(object, "cycle");
    if (cycle < 1 || cycle > std::numeric_limits<int>::max()) reader.fail(".cycle", "expected a positive integer");
    row.cycle = static_cast<int>(cycle);
  }
  row.library_estimate_us = reader.optional_number(object, "library_estimate_us");
  row.samples_us = samples_from_json(reader, object);
  // The table's cells as they are: the table writer shows what it cannot format as "n/a".
  for (const auto& column : spec.table) {
    const json* value = find_row_field(object, spec, column.path);
    row.table_cells.push_back(value ? *value : json(nullptr));
  }
  row.fields = object;
  return row;
}

// "2.0", "1.3" or the copy-1.0 of copy_perf before the report family; returns the major version.
int readable_major(const std::string& version) {
  const std::string numbers = version.rfind("copy-", 0) == 0 ? version.substr(5) : version;
  const auto dot = numbers.find('.');
  const std::string major = dot == std::string::npos ? "" : numbers.substr(0, dot);
  for (int candidate = kOldestReadableMajor; candidate <= kSchemaMajor; ++candidate) {
    if (major == std::to_string(candidate)) return candidate;
  }
  throw ReportFormatError("report.schema_version: unsupported version '" + version + "' (this build reads " +
                          std::to_string(kOldestReadableMajor) + ".x to " + std::to_string(kSchemaMajor) + ".x)");
}

}  // namespace

namespace {

// One skipped case: {what, reason} and the kind's own keys. Before 2.7 a collective's had no
// "what" ({dtype, op, placement, reason}): it is made from those three as the table printed them.
SkippedCase skipped_case_from_json(const Reader& reader, const json& entry) {
  SkippedCase skipped;
  skipped.reason = reader.string(entry, "reason");
  if (entry.contains("what")) {
    skipped.what = reader.string(entry, "what");
  } else {
    skipped.what = reader.string(entry, "dtype") + " " + reader.string(entry, "op") + " " + reader.string(entry, "placement");
  }
  for (const auto& [key, value] : entry.items()) {
    if (key != "what" && key != "reason") skipped.fields[key] = value;
  }
  return skipped;
}

// The envelope's own keys; every other key of a report is its kind's (Report::kind_fields).
bool is_envelope_key(const std::string& key) {
  for (const char* envelope : {"schema_version", "benchmark", "status", "error", "context", "results", "skipped", "summary", "warnings"}) {
    if (key == envelope) return true;
  }
  return false;
}

// context.state_probe.between_cycles_ns holds one probe between each two -N cycles: the report's
// cycles less one once complete, no more while partial, none past kMostCyclesProbed cycles. More
// would place cycles that never ran (history left out cycles that do not exist) and let what a
// summary says of them grow with the file (issue 64). The cycles: context.options.cycles, or in a
// report without it the last row's cycle.
void check_probes_match_cycles(const Reader& reader, const Report& report) {
  const auto& probe = report.context.state_probe;
  if (!probe || !probe->between_cycles_ns) return;
  long long cycles = 1;
  const json& options = report.context.options;
  if (options.is_object() && options.contains("cycles") && options["cycles"].is_number_integer()) {
    cycles = options["cycles"].get<long long>();
  } else {
    for (const Row& row : report.rows) cycles = std::max<long long>(cycles, row.cycle);
  }
  const long long expected = cycles >= 1 && cycles <= StateProbeRecord::kMostCyclesProbed ? cycles - 1 : 0;
  const auto probes = static_cast<long long>(probe->between_cycles_ns->size());
  if (report.status == "complete" ? probes != expected : probes > expected) {
    reader.fail(".context.state_probe.between_cycles_ns",
                std::to_string(probes) + " probe(s) for a " + report.status + " report of " + std::to_string(cycles) + " cycle(s) (-N); expected " +
                    (report.status == "complete" ? "" : "at most ") + std::to_string(expected) +
                    (cycles > StateProbeRecord::kMostCyclesProbed ? " (none are made past " + std::to_string(StateProbeRecord::kMostCyclesProbed) + " cycles)" : ", one between each two cycles"));
  }
}

}  // namespace

Report report_from_json(const nlohmann::json& document) {
  const Reader reader("report");
  if (!document.is_object()) throw ReportFormatError("report: expected a JSON object at the top level");
  Report report;
  report.schema_version_text = reader.string(document, "schema_version");
  const int major = readable_major(report.schema_version_text);
  report.benchmark = reader.string(document, "benchmark");
  if (report.benchmark.empty()) reader.fail(".benchmark", "empty");
  report.kind = row_kind_of_benchmark(report.benchmark);
  const json& results = reader.field(document, "results");
  if (!results.is_array()) reader.fail(".results", "expected an array");
  // 2.x rows name their kind; a 1.x row without one has the layout its benchmark writes.
  for (std::size_t i = 0; i < results.size(); ++i) {
    const bool named = results[i].is_object() && results[i].contains("kind");
    if (!named && major >= 2) reader.at(".results[" + std::to_string(i) + "]").fail(".kind", "missing");
    if (!named) continue;
    const Reader row_reader = reader.at(".results[" + std::to_string(i) + "]");
    const RowKindSpec* spec = find_row_kind(row_reader.string(results[i], "kind"));
    if (!spec) row_reader.fail(".kind", "unknown row kind '" + results[i]["kind"].get<std::string>() + "'");
    if (i > 0 && spec->kind() != report.kind) row_reader.fail(".kind", "rows of different kinds in one report");
    report.kind = spec->kind();
  }
  const bool collective = has_collective_rows(report.kind);
  report.status = reader.string(document, "status");
  if (report.status != "complete" && report.status != "partial") reader.fail(".status", "expected \"complete\" or \"partial\"");
  if (document.contains("error") && document["error"].is_string()) report.error = document["error"].get<std::string>();
  report.context = context_from_json(reader.at(".context"), reader.field(document, "context"), collective);
  const RowKindSpec& spec = row_kind_spec(report.kind);
  RowSummary summary(report.kind);  // the kind's summary, over the rows as written
  for (std::size_t i = 0; i < results.size(); ++i) {
    const Reader row_reader = reader.at(".results[" + std::to_string(i) + "]");
    if (collective) check_collective_row(row_reader, results[i], spec);
    report.rows.push_back(generic_row(row_reader, results[i], spec));
    summary.add(results[i]);
  }
  check_probes_match_cycles(reader, report);
  if (const auto it = document.find("warnings"); it != document.end() && it->is_array()) {
    for (const auto& warning : *it) {
      if (warning.is_string()) report.warnings.push_back(warning.get<std::string>());
    }
  }
  if (const auto it = document.find("skipped"); it != document.end() && it->is_array()) {
    for (std::size_t i = 0; i < it->size(); ++i) report.skipped.push_back(skipped_case_from_json(reader.at(".skipped[" + std::to_string(i) + "]"), (*it)[i]));
  }
  report.summary = spec.summary == SummaryForm::kByWorkload ? document.value("summary", json()) : summary.to_json();
  for (const auto& [key, value] : document.items()) {
    if (!is_envelope_key(key)) report.kind_fields[key] = value;
  }
  if (spec.check_kind_fields) spec.check_kind_fields(report);
  return report;
}

// A report file's JSON, or ReportFormatError naming the path.
json read_report_json(const std::string& path) {
  std::string text;
  try {
    // A report of 20,000 rows is about 20 MB; JSON may be one line, so only the size is capped.
    constexpr std::uint64_t kLargestReport = 256u << 20;
    text = read_input_file(path, {"report", kLargestReport, kLargestReport});
  } catch (const UsageError& e) {
    throw ReportFormatError(e.what());
  }
  if (text.empty()) throw ReportFormatError(path + ": empty file");
  json document;
  try {
    // Depth and size are bounded by the file; nlohmann parses iteratively but its DOM destructor
    // recurses, so refuse absurd nesting before building it.
    int depth = 0, deepest = 0;
    bool in_string = false, escaped = false;
    for (char c : text) {
      if (in_string) {
        if (escaped) escaped = false;
        else if (c == '\\') escaped = true;
        else if (c == '"') in_string = false;
        continue;
      }
      if (c == '"') in_string = true;
      else if (c == '{' || c == '[') deepest = std::max(deepest, ++depth);
      else if (c == '}' || c == ']') --depth;
    }
    if (deepest > 64) throw ReportFormatError(path + ": nesting deeper than 64 levels is not a collbench report");
    document = json::parse(text);
  } catch (const json::exception& e) {
    throw ReportFormatError(path + ": not valid JSON (" + std::string(e.what()) + ")");
  }
  return document;
}

Row row_from_json(const json& row, RowKind kind) { return generic_row(Reader("row"), row, row_kind_spec(kind)); }

Report read_report_file(const std::string& path) { return read_from_file(path, report_from_json); }

BusBandwidthSummary bus_bandwidth_summary_of(const json& summary) {
  const Reader reader("summary");
  BusBandwidthSummary out;
  out.avg_busbw_gbps = reader.optional_number(summary, "avg_busbw_gbps");
  out.max_busbw_gbps = reader.optional_number(summary, "max_busbw_gbps");
  out.wrong_total = reader.integer(summary, "wrong_total");
  out.rows = static_cast<int>(reader.integer(summary, "rows"));
  out.rows_checked = static_cast<int>(reader.integer(summary, "rows_checked"));
  return out;
}

}  // namespace collbench::report
