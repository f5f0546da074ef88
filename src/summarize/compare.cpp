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
  return {{"benchmark", report.benchmark},
          {"world_size", std::to_string(report.context.world_size)},
          {"backend", row.backend},
          {"algorithm", row.algorithm},
          {"dtype", row.dtype},
          {"op", row.op},
          {"root", std::to_string(row.root)},
          {"placement", row.placement},
          {"bytes", std::to_string(row.bytes)}};
}

struct Side {
  std::vector<double> samples;  // pooled per-iteration samples, when every row has them
  std::vector<double> run_means;
  bool every_row_sampled = true;
};

std::map<SeriesKey, Side> collect(const std::vector<LoadedReport>& reports) {
  std::map<SeriesKey, Side> sides;
  for (const auto& observation : observations(reports)) {
    Side& side = sides[row_key(observation)];
    const auto& row = *observation.row;
    side.run_means.push_back(row.time_us.mean);
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

CompareLine compare_sides(const SeriesKey& key, const Side& base, const Side& candidate, const CompareOptions& options) {
  CompareLine line;
  line.key = key;
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
  line.base_us = median(*base_values);
  line.new_us = median(*new_values);
  line.change = line.base_us > 0 ? (line.new_us - line.base_us) / line.base_us : 0;
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
    result.lines.push_back(compare_sides(key, side, it->second, options));
  }
  for (const auto& [key, side] : new_sides) {
    if (!base_sides.count(key)) result.only_in_new.push_back(describe(key));
  }
  // Keys hold text, so order by size as a number: 8192 before 65536.
  auto bytes_of = [](const CompareLine& line) { return std::stoull(line.key.back().second); };
  std::stable_sort(result.lines.begin(), result.lines.end(), [&](const CompareLine& a, const CompareLine& b) {
    const SeriesKey a_rest(a.key.begin(), a.key.end() - 1), b_rest(b.key.begin(), b.key.end() - 1);
    if (a_rest != b_rest) return a_rest < b_rest;
    return bytes_of(a) < bytes_of(b);
  });
  if (result.lines.empty()) throw InputError("BASE and NEW have no row in common (same benchmark, world size, backend, algorithm, dtype, op, root, placement and size)");
  return result;
}

Document compare_document(const CompareResult& result, const CompareOptions& options) {
  Table table;
  table.title = "Comparison";
  // One flat table (no groups): a pull-request comment reads best as a single Markdown table.
  table.columns = {{"benchmark"}, {"np"},           {"algorithm"}, {"dtype"}, {"op"},   {"placement"}, {"bytes"},
                   {"base_us", 2}, {"new_us", 2}, {"change_%", 1}, {"p_value", 4}, {"test"}, {"verdict"}};
  Table::Group group;
  std::map<Verdict, int> counts;
  for (const auto& line : result.lines) {
    auto value = [&](const std::string& name) {
      for (const auto& [key, text] : line.key) {
        if (key == name) return text;
      }
      return std::string();
    };
    counts[line.verdict]++;
    group.rows.push_back({value("benchmark"), std::stoi(value("world_size")), value("algorithm"), value("dtype"), value("op"),
                          value("placement"), std::stoull(value("bytes")), line.base_us, line.new_us, 100 * line.change,
                          line.p_value ? nlohmann::json(*line.p_value) : nlohmann::json(nullptr),
                          line.method + " " + std::to_string(line.base_n) + "/" + std::to_string(line.new_n),
                          to_string(line.verdict)});
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
