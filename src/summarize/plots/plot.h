// collbench plot: a figure (bus bandwidth, TFLOP/s, GB/s, ...) or time against the rows' size axis,
// one line per series, via gnuplot.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "workloads/pt2pt/report/pt2pt_view.h"
#include "summarize/verdicts/compare.h"
#include "summarize/verdicts/history.h"
#include "summarize/common/load.h"
#include "workloads/collectives/report/collective_rows.h"

namespace collbench::summarize {

// The collective metrics by name, for callers that plot collectives.
struct PlotMetric {
  static constexpr const char* kBusBandwidth = "busbw";
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
// Each concurrent group of a grouped report is a series (a line) of its own.
std::vector<PlotSeries> plot_series(const std::vector<LoadedReport>& reports, const std::string& metric);

// A size on the 1024-based axis, as nccl-tests' flags write it: 8, 1K, 32K, 1M, 1.5M.
std::string size_tick_label(std::uint64_t bytes);
// `set xtics (...)` at powers of two from below `smallest` to above `largest`, at most about ten.
std::string size_tics_text(std::uint64_t smallest, std::uint64_t largest);

// gnuplot's data format: one block per series, blocks separated by two blank lines (`index`).
std::string plot_data_text(const std::vector<PlotSeries>& series);
std::string plot_script_text(const std::vector<PlotSeries>& series, const std::string& metric, const std::string& title,
                             const std::string& data_path, const std::string& image_path,
                             const report::RowKindSpec& kind = report::row_kind_spec(report::kCollectiveRows));

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

// pt2pt_perf --matrix: the link matrix as a heat map, one panel per message size (rows: the rank
// that starts; columns: its peer; blank where a link was not measured). `metric` "time" or
// "latency_us" draws the time per message, "gbps" the bandwidth; InputError for another.
std::string heat_map_data_text(const report::LinkMatrix& matrix, bool time);
std::string heat_map_script_text(const report::LinkMatrix& matrix, bool time, const std::string& title,
                                 const std::string& data_path, const std::string& image_path);
PlotFiles write_heat_map(const LoadedReport& loaded, const std::string& metric, const std::string& image_path,
                         const std::string& gnuplot_program = "gnuplot");

// One picture per benchmark: IMAGE when the reports hold one, IMAGE's stem + "-BENCHMARK" + its
// extension for each of several. An empty metric is each kind's headline figure. A pt2pt report
// with a link matrix is drawn as its heat map (one picture per such report).
std::vector<PlotFiles> write_plots(const std::vector<LoadedReport>& reports, const std::string& metric, const std::string& image_path,
                                   const std::string& gnuplot_program = "gnuplot");

// The whole suite in one picture: the bus bandwidth of every collective benchmark against size
// (out-of-place rows, medians over repeats), one line each.
PlotFiles write_overview_plot(const std::vector<LoadedReport>& reports, const std::string& image_path,
                              const std::string& gnuplot_program = "gnuplot");

// compare --plot: per size, NEW's change against BASE with its interval, coloured by verdict, and
// the threshold; one picture per benchmark as above. `data_text` receives the data file's text.
std::string compare_plot_script_text(const CompareResult& result, const std::string& benchmark, const std::string& data_path,
                                     const std::string& image_path, const report::RowKindSpec& kind,
                                     std::vector<std::string>* data_text = nullptr);
std::vector<PlotFiles> write_compare_plots(const CompareResult& result, const report::RowKindSpec& kind, const std::string& image_path,
                                           const std::string& gnuplot_program = "gnuplot");

// history --plot: every row series over time relative to its first level, change points marked.
std::string history_plot_script_text(const HistoryResult& result, const std::string& benchmark, const std::string& data_path,
                                     const std::string& image_path, std::vector<std::string>* data_text = nullptr);
std::vector<PlotFiles> write_history_plots(const HistoryResult& result, const std::string& image_path,
                                           const std::string& gnuplot_program = "gnuplot");

// model predict --plot: per series, the measured points of every fitted world size, each one's
// Hockney fit, and the prediction with its 95 % interval as a band; time against size, log-log.
struct ModelPlotBand {
  std::string title;
  std::vector<std::uint64_t> sizes;
  std::vector<double> time_us, low_us, high_us;
};
struct ModelPlot {
  std::string title;                  // the series
  std::vector<PlotSeries> measured;   // one per fitted world size (empty for model files without points)
  std::vector<PlotSeries> fitted;     // the same world sizes' fits
  ModelPlotBand predicted;
};
std::string model_plot_script_text(const ModelPlot& plot, const std::string& data_path, const std::string& image_path,
                                   std::string* data_text = nullptr);
// One picture per series: IMAGE for one, IMAGE's stem + "-N" + extension for each of several.
std::vector<PlotFiles> write_model_plots(const std::vector<ModelPlot>& plots, const std::string& image_path,
                                         const std::string& gnuplot_program = "gnuplot");

}  // namespace collbench::summarize
