#include "summarize/tables/speedup.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "core/printable.h"
#include "summarize/common/input_error.h"

namespace collbench::summarize {
namespace {

constexpr const char* kUnset = "(unset)";

// One value's rows at one size: their mean times and, for a job-throughput kind, their rates.
struct Measured {
  std::vector<double> times;
  std::vector<double> rates;
};

std::string lookup(const std::map<std::string, std::string>& map, const std::string& name) {
  const auto it = map.find(name);
  return it == map.end() ? kUnset : it->second;
}

bool has_prefix(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

// The tag the key reads, if it reads one: that tag must not also split the series.
std::string tag_of_key(const std::string& key) {
  if (has_prefix(key, "tag.") || has_prefix(key, "tag:")) return key.substr(4);
  if (has_prefix(key, "env.") || has_prefix(key, "env:")) return key.substr(4);  // sweeps tag env settings too
  return key;  // a bare NAME
}

// Fields that change together with the key's value (the algorithm an NCCL_ALGO or OMPI_MCA
// setting selects, the tag a sweep adds for the setting) must not split a series, or every value
// would sit alone in its own series. A field co-varies when each value of the key sees exactly
// one value of the field and the field has more than one value overall.
struct CoVarying {
  std::map<std::string, std::map<std::string, std::set<std::string>>> seen;  // field -> key value -> field values
  void add(const std::string& field, const std::string& key_value, const std::string& field_value) {
    seen[field][key_value].insert(field_value);
  }
  bool co_varies(const std::string& field) const {
    const auto it = seen.find(field);
    if (it == seen.end()) return false;
    std::set<std::string> overall;
    for (const auto& [key_value, values] : it->second) {
      if (values.size() != 1) return false;
      overall.insert(values.begin(), values.end());
    }
    return overall.size() > 1;
  }
};

std::map<std::string, std::string> field_values(const Observation& observation) {
  std::map<std::string, std::string> fields;
  if (const auto algorithm = key_field(*observation.row, "algorithm")) fields["algorithm"] = *algorithm;
  for (const auto& [name, value] : observation.source->report.context.tags) fields["tag." + name] = value;
  return fields;
}

SeriesKey speedup_key(const Observation& observation, const std::string& key, const CoVarying& co_varying) {
  const auto& report = observation.source->report;
  const auto& row = *observation.row;
  SeriesKey out = {{"benchmark", report.benchmark}};
  for (const auto& [field, value] : row.keys) {
    if (field == key || (field == "algorithm" && co_varying.co_varies("algorithm"))) continue;
    out.push_back({field, value});
  }
  if (key != "world_size" && key != "np") out.push_back({"world_size", std::to_string(report.context.world_size)});
  std::string tags;
  for (const auto& [name, value] : report.context.tags) {
    if (is_bookkeeping_tag(name) || name == tag_of_key(key) || co_varying.co_varies("tag." + name)) continue;
    tags += (tags.empty() ? "" : " ") + name + "=" + value;
  }
  out.push_back({"tags", tags});
  return out;
}

bool all_numeric(const std::vector<std::string>& values) {
  for (const auto& value : values) {
    char* end = nullptr;
    std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0') return false;
  }
  return true;
}

}  // namespace

std::string value_of_key(const std::string& key, const LoadedReport& source, const report::Row& row) {
  const auto& context = source.report.context;
  if (const auto value = key_field(row, key)) return *value;
  if (key == "world_size" || key == "np") return std::to_string(context.world_size);
  if (key == "version") return lookup(context.versions, "collbench");
  if (has_prefix(key, "env.") || has_prefix(key, "env:")) return lookup(context.env, key.substr(4));
  if (has_prefix(key, "tag.") || has_prefix(key, "tag:")) return lookup(context.tags, key.substr(4));
  if (context.tags.count(key)) return context.tags.at(key);
  return lookup(context.env, key);
}

SpeedupResult compute_speedup(const std::vector<LoadedReport>& reports, const std::string& key,
                              const std::optional<std::string>& baseline) {
  SpeedupResult result;
  result.key = key;
  // Per series, per size (shapes of one m*n*k apart), per value of the key: the rows' mean times.
  std::map<SeriesKey, std::map<std::pair<std::uint64_t, std::string>, std::map<std::string, Measured>>> grouped;
  std::map<std::pair<std::uint64_t, std::string>, nlohmann::json> size_cells;
  std::vector<std::string> values;  // first appearance order
  const auto all = observations(reports);
  CoVarying co_varying;
  for (const auto& observation : all) {
    const std::string value = value_of_key(key, *observation.source, *observation.row);
    if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
    for (const auto& [field, field_value] : field_values(observation)) co_varying.add(field, value, field_value);
  }
  for (const auto& observation : all) {
    const report::Row& row = *observation.row;
    if (!row.time_us) throw InputError(observation.source->path + ": " + report::row_kind_spec(row.kind).name + " rows have no timings to compare");
    const std::string value = value_of_key(key, *observation.source, row);
    Measured& measured = grouped[speedup_key(observation, key, co_varying)][{row.size, row.size_text}][value];
    measured.times.push_back(*row.time_us);
    if (report::row_kind_spec(row.kind).headline_is_job_throughput && headline(row) && *headline(row) > 0) {
      measured.rates.push_back(*headline(row));
    }
    size_cells[{row.size, row.size_text}] = size_cell(row);
  }
  if (values.empty()) throw InputError("no rows to compare");
  if (values.size() == 1 && values.front() == kUnset) throw InputError("no report has a value for --by " + key);
  if (values.size() < 2) throw InputError("--by " + key + ": every row has the same value '" + values.front() + "'; nothing to compare");
  if (all_numeric(values)) {
    std::stable_sort(values.begin(), values.end(),
                     [](const std::string& a, const std::string& b) { return std::strtod(a.c_str(), nullptr) < std::strtod(b.c_str(), nullptr); });
  }
  if (baseline) {
    const auto it = std::find(values.begin(), values.end(), *baseline);
    if (it == values.end()) {
      throw InputError("--baseline " + *baseline + " is not a value of " + key + " (values: " + joined(values, ", ") + ")");
    }
    std::rotate(values.begin(), it, it + 1);
  }
  result.values = values;
  for (const auto& [series_key, by_size] : grouped) {
    SpeedupSeries series{series_key, {}, {}};
    std::vector<std::vector<double>> ratios(values.size());
    for (const auto& [size, by_value] : by_size) {
      SpeedupSeries::Line line{size.first, size_cells[size], {}, {}};
      std::vector<std::optional<double>> rates;
      for (const auto& value : values) {
        const auto it = by_value.find(value);
        const bool timed = it != by_value.end();
        line.time_us.push_back(timed ? std::optional<double>(median(it->second.times)) : std::nullopt);
        // Every row of a job-throughput kind has its rate; a value's rates are all or none.
        const bool rated = timed && it->second.rates.size() == it->second.times.size();
        rates.push_back(rated ? std::optional<double>(median(it->second.rates)) : std::nullopt);
      }
      for (std::size_t i = 0; i < values.size(); ++i) {
        std::optional<double> speedup;
        if (rates[0] && rates[i]) {
          speedup = *rates[i] / *rates[0];
          result.by_job_throughput = true;
        } else if (line.time_us[0] && line.time_us[i] && *line.time_us[i] > 0) {
          speedup = *line.time_us[0] / *line.time_us[i];
        }
        line.speedup.push_back(speedup);
        if (speedup) ratios[i].push_back(*speedup);
      }
      series.lines.push_back(std::move(line));
    }
    for (const auto& list : ratios) series.geomean.push_back(list.empty() ? std::nullopt : std::optional<double>(geometric_mean(list)));
    result.series.push_back(std::move(series));
  }
  return result;
}

std::vector<std::string> best_setting_lines(const SpeedupResult& result, double clear_margin) {
  // The fields whose values differ between series name each one; a single series needs no name.
  std::set<std::string> varying;
  for (const auto& series : result.series) {
    for (std::size_t i = 0; i < series.key.size(); ++i) {
      if (series.key[i] != result.series.front().key[i]) varying.insert(series.key[i].first);
    }
  }
  const auto fixed = [](double value) { return formatted("%.2f", value); };
  const std::string& base = result.values.front();
  std::vector<std::string> lines;
  for (const auto& series : result.series) {
    std::string where;
    for (const auto& [name, value] : series.key) {
      if (varying.count(name)) where += (where.empty() ? " (" : ", ") + name + "=" + value;
    }
    if (!where.empty()) where += ")";
    std::size_t best = 0, runner_up = 0;
    double best_speedup = 1, runner_up_speedup = 0;
    for (std::size_t i = 1; i < result.values.size() && i < series.geomean.size(); ++i) {
      if (!series.geomean[i]) continue;
      const double speedup = *series.geomean[i];
      if (speedup > best_speedup) {
        runner_up = best;
        runner_up_speedup = best_speedup;
        best = i;
        best_speedup = speedup;
      } else if (speedup > runner_up_speedup) {
        runner_up = i;
        runner_up_speedup = speedup;
      }
    }
    if (runner_up_speedup <= 0) continue;  // nothing to compare in this series
    if (best_speedup < runner_up_speedup * clear_margin) {
      lines.push_back("no clear best " + result.key + where + ": " + result.values[best] + " and " + result.values[runner_up] +
                      " within " + fixed(100 * (clear_margin - 1)) + "% of each other");
    } else if (best == 0) {
      lines.push_back(result.key + " " + base + where + " is the fastest on this machine: the next best, " +
                      result.values[runner_up] + ", is " + fixed(1 / runner_up_speedup) + "x slower");
    } else {
      lines.push_back(result.key + " " + result.values[best] + where + ": " + fixed(best_speedup) + "x faster than " + base +
                      " on this machine");
    }
  }
  return lines;
}

Document speedup_document(const SpeedupResult& result, const std::string& size_column) {
  Table table;
  table.title = "Speedup by " + result.key + " (baseline " + result.values.front() + ")";
  if (!result.series.empty()) table.group_columns = key_names(result.series.front().key);
  // Bare numbers ("2") make poor headers; name the key with them when every value is a number.
  const bool numeric = all_numeric(result.values);
  const std::string short_key = result.key.find_first_of(".:") == std::string::npos ? result.key : result.key.substr(4);
  auto header = [&](const std::string& value) { return numeric ? short_key + "=" + value : value; };
  table.columns = {{size_column}, {header(result.values.front()) + " time_us", 2}};
  for (std::size_t i = 1; i < result.values.size(); ++i) table.columns.push_back({header(result.values[i]), 3});
  for (const auto& series : result.series) {
    Table::Group group{key_cells(series.key), {}};
    for (const auto& line : series.lines) {
      std::vector<nlohmann::json> row = {line.size_cell, report::json_or_null(line.time_us[0])};
      for (std::size_t i = 1; i < result.values.size(); ++i) row.push_back(report::json_or_null(line.speedup[i]));
      group.rows.push_back(std::move(row));
    }
    std::vector<nlohmann::json> footer = {"geomean", nullptr};
    for (std::size_t i = 1; i < result.values.size(); ++i) footer.push_back(report::json_or_null(series.geomean[i]));
    group.rows.push_back(std::move(footer));
    table.groups.push_back(std::move(group));
  }
  Document document;
  document.tables.push_back(std::move(table));
  if (result.by_job_throughput) {
    // The headline is the job's throughput (ddp_step: samples/s), so a step that holds more
    // samples (--accumulate, more ranks) compares by the samples it trains, not by its length.
    document.notes.push_back("columns after the baseline are speedups: rate / baseline rate (the job's throughput; > 1 is faster than " +
                             result.values.front() + "); n/a where a value has no run at that size");
  } else {
    document.notes.push_back("columns after the baseline are speedups: baseline time / time (> 1 is faster than " +
                             result.values.front() + "); n/a where a value has no run at that size");
  }
  for (const auto& line : best_setting_lines(result)) document.notes.push_back(line);
  document.extra["key"] = result.key;
  document.extra["values"] = result.values;
  return document;
}

}  // namespace collbench::summarize
