#include "summarize/series.h"

#include <algorithm>

namespace collbench::summarize {

bool is_bookkeeping_tag(const std::string& key) { return key == "np" || key == "repeat" || key == "sweep_point"; }

std::string tags_text(const report::Context& context, const std::string& also_ignored) {
  std::string text;
  for (const auto& [key, value] : context.tags) {
    if (is_bookkeeping_tag(key) || key == also_ignored) continue;
    text += (text.empty() ? "" : " ") + key + "=" + value;
  }
  return text;
}

std::vector<Observation> observations(const std::vector<LoadedReport>& reports) {
  std::vector<Observation> out;
  for (const auto& loaded : reports) {
    for (const auto& row : loaded.report.results) out.push_back({&loaded, &row});
  }
  return out;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

std::vector<std::string> key_names(const SeriesKey& key) {
  std::vector<std::string> names;
  for (const auto& entry : key) names.push_back(entry.first);
  return names;
}

std::vector<nlohmann::json> key_cells(const SeriesKey& key) {
  std::vector<nlohmann::json> cells;
  for (const auto& entry : key) cells.emplace_back(entry.second);
  return cells;
}

}  // namespace collbench::summarize
