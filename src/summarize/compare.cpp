#include "summarize/compare.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "summarize/input_error.h"
#include "summarize/mann_whitney.h"

namespace collbench::summarize {
namespace {

constexpr std::size_t kMinimumSamples = 5;  // fewer per side and the U test cannot reach p < 0.05 reliably
constexpr std::size_t kMinimumRuns = 3;

SeriesKey row_key(const Observation& observation) {
  const auto& report = observation.source->report;
  const auto& row = *observation.row;
  SeriesKey key = {{"benchmark", report.benchmark}, {"world_size", std::to_string(report.context.world_size)}};
  key.insert(key.end(), row.keys.begin(), row.keys.end());
  key.emplace_back(report::row_kind_spec(row.kind).size_column, row.size_text);
  return key;
}

struct Side {
  std::uint64_t size = 0;
  std::vector<double> samples;  // pooled per-iteration samples, when every row has them
  std::vector<double> run_means;  // or the headline rate of rows without timings
  bool every_row_sampled = true;
};

std::map<SeriesKey, Side> collect(const std::vector<LoadedReport>& reports) {
  std::map<SeriesKey, Side> sides;
  for (const auto& observation : observations(reports)) {
    Side& side = sides[row_key(observation)];
    const auto& row = *observation.row;
    side.size = row.size;
    const std::optional<double> value = row.time_us ? row.time_us : headline(row);
    // The reader refuses zero times; a zero rate has no ratio either.
    if (!value || *value <= 0) {
      throw InputError(observation.source->path + ": a row has no positive " + (row.time_us ? "time" : "headline figure") +
                       " to compare (" + row_key(observation).back().first + " " + row.size_text + ")");
    }
    side.run_means.push_back(*value);
    if (row.samples_us.empty()) side.every_row_sampled = false;
    side.samples.insert(side.samples.end(), row.samples_us.begin(), row.samples_us.end());
  }
  return sides;
}

std::string describe(const SeriesKey& key) {
  std::string text;
  for (const auto& [name, value] : key) text += (text.empty() ? "" : " ") + name + "=" + value;
  return text;
}

CompareLine compare_sides(const SeriesKey& key, const Side& base, const Side& candidate, const CompareOptions& options,
                          bool higher_is_better) {
  CompareLine line;
  line.key = key;
  line.size = base.size;
  const std::vector<double>* base_values = &base.run_means;
  const std::vector<double>* new_values = &candidate.run_means;
  if (base.every_row_sampled && candidate.every_row_sampled && base.samples.size() >= kMinimumSamples &&
      candidate.samples.size() >= kMinimumSamples) {
    line.method = "samples";
    base_values = &base.samples;
    new_values = &candidate.samples;
  } else if (base.run_means.size() >= kMinimumRuns && candidate.run_means.size() >= kMinimumRuns) {
    line.method = "runs";
  } else {
    line.method = "single";
  }
  line.base_n = base_values->size();
  line.new_n = new_values->size();
  line.base_value = median(*base_values);
  line.new_value = median(*new_values);
  line.change = higher_is_better ? line.base_value / line.new_value - 1 : (line.new_value - line.base_value) / line.base_value;
  if (line.method != "single") line.p_value = mann_whitney_u(*base_values, *new_values).p_value;
  line.verdict = decide(line.change, line.p_value, options);
  return line;
}

}  // namespace

std::string to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::kSame: return "SAME";
    case Verdict::kFaster: return "FASTER";
    case Verdict::kSlower: return "SLOWER";
    case Verdict::kNoisy: return "NOISY";
  }
  return "?";
}

Verdict decide(double change, std::optional<double> p_value, const CompareOptions& options) {
  if (std::fabs(change) < options.min_effect) return Verdict::kSame;
  if (p_value && *p_value >= options.alpha) return Verdict::kNoisy;
  return change > 0 ? Verdict::kSlower : Verdict::kFaster;
}

bool CompareResult::any_slower() const {
  for (const auto& line : lines) {
    if (line.verdict == Verdict::kSlower) return true;
  }
  return false;
}

CompareResult compare_reports(const std::vector<LoadedReport>& base, const std::vector<LoadedReport>& candidate,
                              const CompareOptions& options) {
  if (base.front().report.kind != candidate.front().report.kind) {
    throw InputError(std::string("BASE has ") + kind_of(base).name + " rows and NEW has " + kind_of(candidate).name +
                     " rows; compare expects the same kind of report on both sides");
  }
  const bool timed = kind_of(base).time_path != nullptr;
  const bool higher_is_better = !timed;  // a rate (the headline figure) when rows carry no timings
  std::set<std::string> base_benchmarks, new_benchmarks;
  for (const auto& loaded : base) base_benchmarks.insert(loaded.report.benchmark);
  for (const auto& loaded : candidate) new_benchmarks.insert(loaded.report.benchmark);
  bool shared = false;
  for (const auto& name : base_benchmarks) shared = shared || new_benchmarks.count(name);
  if (!shared) {
    throw InputError("BASE (" + (base_benchmarks.empty() ? std::string("?") : *base_benchmarks.begin()) + ") and NEW (" +
                     (new_benchmarks.empty() ? std::string("?") : *new_benchmarks.begin()) +
                     ") have no benchmark in common; compare expects the same benchmark on both sides");
  }
  const auto base_sides = collect(base);
  const auto new_sides = collect(candidate);
  CompareResult result;
  for (const auto& [key, side] : base_sides) {
    const auto it = new_sides.find(key);
    if (it == new_sides.end()) {
      result.only_in_base.push_back(describe(key));
      continue;
    }
    result.lines.push_back(compare_sides(key, side, it->second, options, higher_is_better));
  }
  for (const auto& [key, side] : new_sides) {
    if (!base_sides.count(key)) result.only_in_new.push_back(describe(key));
  }
  // Keys hold text, so order by size as a number: 8192 before 65536.
  std::stable_sort(result.lines.begin(), result.lines.end(), [&](const CompareLine& a, const CompareLine& b) {
    const SeriesKey a_rest(a.key.begin(), a.key.end() - 1), b_rest(b.key.begin(), b.key.end() - 1);
    if (a_rest != b_rest) return a_rest < b_rest;
    return a.size < b.size;
  });
  result.measure = timed ? "us" : kind_of(base).figures.front().path;
  if (result.lines.empty()) {
    std::string fields;
    for (const char* field : kind_of(base).key_fields) fields += std::string(", ") + field;
    throw InputError("BASE and NEW have no row in common (same benchmark, world size" + fields + " and " + kind_of(base).size_column + ")");
  }
  return result;
}

Document compare_document(const CompareResult& result, const CompareOptions& options) {
  Table table;
  table.title = "Comparison";
  // One flat table (no groups): a pull-request comment reads best as a single Markdown table. Its
  // leading columns are the rows' key: benchmark, np, the kind's key fields and its size.
  Table::Group group;
  std::map<Verdict, int> counts;
  for (const auto& line : result.lines) {
    if (table.columns.empty()) {
      for (const auto& [name, value] : line.key) table.columns.push_back({name == "world_size" ? "np" : name});
      for (const char* name : {"base_", "new_"}) table.columns.push_back({name + result.measure, 2});
      for (const Column& column : std::vector<Column>{{"change_%", 1}, {"p_value", 4}, {"test"}, {"verdict"}}) table.columns.push_back(column);
    }
    counts[line.verdict]++;
    std::vector<nlohmann::json> cells;
    for (const auto& [name, value] : line.key) cells.emplace_back(value);
    cells[1] = std::stoi(line.key[1].second);  // np as a number
    if (line.key.back().second == std::to_string(line.size)) cells.back() = line.size;
    for (const nlohmann::json& cell : std::vector<nlohmann::json>{
             line.base_value, line.new_value, 100 * line.change, line.p_value ? nlohmann::json(*line.p_value) : nlohmann::json(nullptr),
             line.method + " " + std::to_string(line.base_n) + "/" + std::to_string(line.new_n), to_string(line.verdict)}) {
      cells.push_back(cell);
    }
    group.rows.push_back(std::move(cells));
  }
  table.groups.push_back(std::move(group));
  Document document;
  document.tables.push_back(std::move(table));
  char rule[200];
  std::snprintf(rule, sizeof rule, "Mann-Whitney U test, alpha %.3g, minimum effect %.3g%%: changes below it are SAME", options.alpha,
                100 * options.min_effect);
  std::string verdict_line = result.any_slower() ? "verdict: SLOWER (regression)" : "verdict: no regression";
  verdict_line += " -- " + std::to_string(counts[Verdict::kSame]) + " same, " + std::to_string(counts[Verdict::kFaster]) + " faster, " +
                  std::to_string(counts[Verdict::kSlower]) + " slower, " + std::to_string(counts[Verdict::kNoisy]) + " noisy";
  document.notes.push_back(verdict_line);
  document.notes.push_back(rule);
  for (const auto& row : result.only_in_base) document.notes.push_back("only in BASE: " + row);
  for (const auto& row : result.only_in_new) document.notes.push_back("only in NEW: " + row);
  document.extra["regression"] = result.any_slower();
  document.extra["counts"] = {{"same", counts[Verdict::kSame]}, {"faster", counts[Verdict::kFaster]},
                              {"slower", counts[Verdict::kSlower]}, {"noisy", counts[Verdict::kNoisy]}};
  return document;
}

}  // namespace collbench::summarize
