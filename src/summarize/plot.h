// collbench plot: a figure (bus bandwidth, TFLOP/s, GB/s, ...) or time against the rows' size axis,
// one line per series, via gnuplot.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "summarize/load.h"

namespace collbench::summarize {

// The collective metrics by name, for callers that plot collectives.
struct PlotMetric {
  static constexpr const char* kBusBandwidth = "busbw";
  static constexpr const char* kAlgBandwidth = "algbw";
  static constexpr const char* kTime = "time";
};

// A metric is "time" or the name of one of the kind's figures (busbw, algbw; tflops; gbps; ...).
// Throws InputError naming the choices for another name.
void check_plot_metric(const report::RowKindSpec& kind, const std::string& metric);

struct PlotSeries {
  std::string title;  // "all_reduce np=4 mpi default float32 sum out ..."
  std::vector<std::pair<std::uint64_t, double>> points;  // (size, value), by size; medians over repeats
};

// Rows without a value (bus bandwidth on one rank) are left out; series left empty are dropped.
std::vector<PlotSeries> plot_series(const std::vector<LoadedReport>& reports, const std::string& metric);

// gnuplot's data format: one block per series, blocks separated by two blank lines (`index`).
std::string plot_data_text(const std::vector<PlotSeries>& series);
std::string plot_script_text(const std::vector<PlotSeries>& series, const std::string& metric, const std::string& title,
                             const std::string& data_path, const std::string& image_path,
                             const report::RowKindSpec& kind = report::row_kind_spec(report::RowKind::kCollective));

struct PlotFiles {
  std::string data_path, script_path, image_path;
  bool rendered = false;
  std::string message;  // what happened, for the user
};

// Writes IMAGE's data (IMAGE minus extension + .dat) and script (+ .gp) beside it, then runs
// `gnuplot_program script`. The image type follows IMAGE's extension: .svg or .png.
// Throws InputError for another extension or nothing to plot; std::runtime_error when a file cannot be written.
PlotFiles write_plot(const std::vector<LoadedReport>& reports, const std::string& metric, const std::string& image_path,
                     const std::string& gnuplot_program = "gnuplot");

}  // namespace collbench::summarize
