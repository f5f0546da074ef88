// The run figure: the one number a run gives a row when runs are compared (compare, ab, history).
//
// Interference on a shared machine only ever adds time, so a low quantile of a run's iteration
// times shows the undisturbed cost best (Chen and Revels, "Robust benchmarking in noisy
// environments"); the median or the mean moves with however many iterations were disturbed.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "report/report.h"

namespace collbench::summarize {

enum class RunFigure { kMin, kP10, kP25, kP50, kMean };

// "min", "p10", "p25", "p50", "mean"; InputError for any other name.
RunFigure parse_run_figure(const std::string& name);
std::string to_string(RunFigure figure);

// A quantile needs about 1/q values behind it to differ from the minimum by more than chance
// (p10: 10 iterations); a row with fewer uses its minimum instead.
std::size_t values_needed(RunFigure figure);

struct RowFigure {
  double value = 0;
  bool fell_back_to_min = false;  // too few values for the quantile, or a report without it
};

// A timed row's figure: a quantile of its per-iteration samples when it kept them, else the
// statistic its report recorded (p25 only from samples). nullopt when the row has no timings.
std::optional<RowFigure> row_figure(const report::Row& row, RunFigure figure);

// One run's figure over several rows of the same configuration (cycles, -N): the same statistic
// over the rows' figures, so that -N batches on the GPU's batch schedule give a run a distribution.
double combine_cycles(std::vector<double> figures, RunFigure figure);

// "each run's p10 time (--figure p10)", with how many rows fell back to their minimum; history's
// "each cycle's p10 time (--figure p10), the median over a run's cycles (-N)".
std::string describe_run_figure(RunFigure figure, std::size_t rows_fallen_back, bool median_over_cycles = false);

}  // namespace collbench::summarize
