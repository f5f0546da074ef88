#include "summarize/common/figure.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/stats.h"
#include "summarize/common/input_error.h"

namespace collbench::summarize {
namespace {

std::optional<double> quantile_of(RunFigure figure) {
  switch (figure) {
    case RunFigure::kP10: return 0.10;
    case RunFigure::kP25: return 0.25;
    case RunFigure::kP50: return 0.50;
    default: return std::nullopt;
  }
}

}  // namespace

RunFigure parse_run_figure(const std::string& name) {
  if (name == "min") return RunFigure::kMin;
  if (name == "p10") return RunFigure::kP10;
  if (name == "p25") return RunFigure::kP25;
  if (name == "p50") return RunFigure::kP50;
  if (name == "mean") return RunFigure::kMean;
  throw InputError("--figure '" + name + "': expected min, p10, p25, p50 or mean");
}

std::string to_string(RunFigure figure) {
  switch (figure) {
    case RunFigure::kMin: return "min";
    case RunFigure::kP10: return "p10";
    case RunFigure::kP25: return "p25";
    case RunFigure::kP50: return "p50";
    case RunFigure::kMean: return "mean";
  }
  return "?";
}

std::size_t values_needed(RunFigure figure) {
  const auto q = quantile_of(figure);
  return q ? static_cast<std::size_t>(std::ceil(1 / *q - 1e-9)) : 1;
}

std::optional<RowFigure> row_figure(const report::Row& row, RunFigure figure) {
  if (!row.time_us) return std::nullopt;
  if (figure == RunFigure::kMean) return RowFigure{*row.time_us, false};
  const auto minimum = [&]() {
    if (!row.samples_us.empty()) return *std::min_element(row.samples_us.begin(), row.samples_us.end());
    const auto it = row.time_statistics.find("min");
    return it != row.time_statistics.end() ? it->second : *row.time_us;
  };
  if (figure == RunFigure::kMin) return RowFigure{minimum(), false};
  const double q = *quantile_of(figure);
  if (!row.samples_us.empty()) {
    if (row.samples_us.size() < values_needed(figure)) return RowFigure{minimum(), true};
    std::vector<double> sorted = row.samples_us;
    std::sort(sorted.begin(), sorted.end());
    return RowFigure{quantile_of_sorted(sorted, q), false};
  }
  const auto it = row.time_statistics.find(to_string(figure));
  const bool too_few = row.iterations && static_cast<std::size_t>(*row.iterations) < values_needed(figure);
  if (it == row.time_statistics.end() || too_few) return RowFigure{minimum(), true};
  return RowFigure{it->second, false};
}

double combine_cycles(std::vector<double> figures, RunFigure figure) {
  std::sort(figures.begin(), figures.end());
  if (figure == RunFigure::kMean) return std::accumulate(figures.begin(), figures.end(), 0.0) / static_cast<double>(figures.size());
  if (figure == RunFigure::kMin) return figures.front();
  return quantile_of_sorted(figures, *quantile_of(figure));
}

std::string describe_run_figure(RunFigure figure, std::size_t rows_fallen_back, bool median_over_cycles) {
  std::string text = median_over_cycles ? "each cycle's " + to_string(figure) + " time (--figure " + to_string(figure) + "), the median over a run's cycles (-N)"
                                        : "each run's " + to_string(figure) + " time (--figure " + to_string(figure) + ")";
  if (rows_fallen_back) {
    text += "; " + std::to_string(rows_fallen_back) + " row(s) had fewer than " + std::to_string(values_needed(figure)) +
            " iterations or no " + to_string(figure) + " and used their minimum";
  }
  return text;
}

}  // namespace collbench::summarize
