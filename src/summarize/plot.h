// collbench plot: bus bandwidth or time against size, one line per series, log axes, via gnuplot.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "summarize/load.h"

namespace collbench::summarize {

enum class PlotMetric { kBusBandwidth, kAlgBandwidth, kTime };
PlotMetric parse_plot_metric(const std::string& name);  // busbw, algbw, time; throws InputError

struct PlotSeries {
  std::string title;  // "np=4 float32 sum out default ..."
  std::vector<std::pair<std::uint64_t, double>> points;  // (bytes, value), by bytes; medians over repeats
};

// Rows without a value (bus bandwidth on one rank) are left out; series left empty are dropped.
std::vector<PlotSeries> plot_series(const std::vector<LoadedReport>& reports, PlotMetric metric);

// gnuplot's data format: one block per series, blocks separated by two blank lines (`index`).
std::string plot_data_text(const std::vector<PlotSeries>& series);
std::string plot_script_text(const std::vector<PlotSeries>& series, PlotMetric metric, const std::string& title,
                             const std::string& data_path, const std::string& image_path);

struct PlotFiles {
  std::string data_path, script_path, image_path;
  bool rendered = false;
  std::string message;  // what happened, for the user
};

// Writes IMAGE's data (IMAGE minus extension + .dat) and script (+ .gp) beside it, then runs
// `gnuplot_program script`. The image type follows IMAGE's extension: .svg or .png.
// Throws InputError for another extension or nothing to plot; std::runtime_error when a file cannot be written.
PlotFiles write_plot(const std::vector<LoadedReport>& reports, PlotMetric metric, const std::string& image_path,
                     const std::string& gnuplot_program = "gnuplot");

}  // namespace collbench::summarize
