#include "summarize/plot.h"

#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "summarize/input_error.h"
#include "summarize/process.h"
#include "summarize/series.h"

namespace collbench::summarize {
namespace {

std::string metric_label(const report::RowKindSpec& kind, const std::string& metric) {
  for (const auto& figure : kind.figures) {
    if (metric == figure.name) return figure.label;
  }
  return "time (us)";
}

std::optional<double> value_of(const report::Row& row, const std::string& metric) {
  std::optional<double> value = metric == "time" ? row.time_us : std::nullopt;
  const auto& figures = report::row_kind_spec(row.kind).figures;
  for (std::size_t i = 0; i < figures.size() && i < row.figures.size(); ++i) {
    if (metric == figures[i].name) value = row.figures[i];
  }
  if (value && *value > 0) return value;
  return std::nullopt;  // log axes cannot show 0
}

// The benchmark, world size, the row's key values (leaving out the "none" op and the -1 root that
// say a collective has neither) and the tags.
std::string series_title(const LoadedReport& source, const report::Row& row) {
  std::string title = source.report.benchmark + " np=" + std::to_string(source.report.context.world_size);
  for (const auto& [field, value] : row.keys) {
    if ((field == "op" && value == "none") || (field == "root" && value == "-1")) continue;
    title += " " + (field == "root" ? "root=" + value : value);
  }
  const std::string tags = tags_text(source.report.context);
  if (!tags.empty()) title += " " + tags;
  return title;
}

// gnuplot runs backquoted text inside double-quoted strings as a shell command, and a newline
// ends a command, so report text never reaches the script as it is. A label keeps only printable
// ASCII without the characters gnuplot treats specially (` @ $ \\ and quotes), and goes into a
// single-quoted string, where gnuplot expands nothing.
std::string gnuplot_label(const std::string& text) {
  std::string out = "'";
  for (unsigned char c : text) {
    const bool plain = c >= 0x20 && c < 0x7f && std::string("`@$\\'\"").find(static_cast<char>(c)) == std::string::npos;
    out += plain ? static_cast<char>(c) : '?';
  }
  return out + "'";
}

// A file path must stay the path it is, so it is quoted rather than filtered: single quotes
// (doubled inside), and a path with a control character is refused.
std::string gnuplot_path(const std::string& path) {
  std::string out = "'";
  for (unsigned char c : path) {
    if (c < 0x20 || c == 0x7f) throw InputError("plot path has a control character: refusing to write it into a gnuplot script");
    out += c == '\'' ? std::string("''") : std::string(1, static_cast<char>(c));
  }
  return out + "'";
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw std::runtime_error(path + ": cannot write");
}

}  // namespace

void check_plot_metric(const report::RowKindSpec& kind, const std::string& metric) {
  std::string choices;
  for (const auto& figure : kind.figures) {
    if (metric == figure.name) return;
    choices += std::string(figure.name) + ", ";
  }
  if (kind.time_path) {
    if (metric == "time") return;
    choices += "time, ";
  }
  throw InputError("--metric expects " + choices.substr(0, choices.size() - 2) + " for " + kind.name + " rows, not '" + metric + "'");
}

std::vector<PlotSeries> plot_series(const std::vector<LoadedReport>& reports, const std::string& metric) {
  std::map<std::string, std::map<std::uint64_t, std::vector<double>>> grouped;
  for (const auto& observation : observations(reports)) {
    const auto value = value_of(*observation.row, metric);
    if (!value) continue;
    grouped[series_title(*observation.source, *observation.row)][observation.row->size].push_back(*value);
  }
  std::vector<PlotSeries> out;
  for (const auto& [title, by_size] : grouped) {
    PlotSeries series{title, {}};
    for (const auto& [bytes, values] : by_size) series.points.emplace_back(bytes, median(values));
    out.push_back(std::move(series));
  }
  return out;
}

std::string plot_data_text(const std::vector<PlotSeries>& series) {
  std::ostringstream out;
  out.precision(9);
  for (std::size_t i = 0; i < series.size(); ++i) {
    if (i) out << "\n\n";
    out << "# " << gnuplot_label(series[i].title) << "\n";  // a comment line: no newline may escape it
    for (const auto& [bytes, value] : series[i].points) out << bytes << ' ' << value << '\n';
  }
  return out.str();
}

std::string plot_script_text(const std::vector<PlotSeries>& series, const std::string& metric, const std::string& title,
                             const std::string& data_path, const std::string& image_path, const report::RowKindSpec& kind) {
  const bool png = image_path.size() >= 4 && image_path.substr(image_path.size() - 4) == ".png";
  std::ostringstream out;
  out << "# collbench plot; run: gnuplot " << "<this file>\n";
  out << (png ? "set terminal pngcairo size 1000,640\n" : "set terminal svg size 1000,640 dynamic\n");
  out << "set output " << gnuplot_path(image_path) << "\n";
  out << "set title " << gnuplot_label(title) << " noenhanced\n";
  out << (kind.size_is_magnitude ? "set logscale x 2\n" : "") << "set logscale y 10\nset grid\n";
  out << "set xlabel " << gnuplot_label(kind.size_label) << "\nset ylabel " << gnuplot_label(metric_label(kind, metric)) << "\n";
  out << "set key outside right top noenhanced\n";
  if (std::string(kind.size_column) == "bytes") out << "set format x \"%.0s%cB\"\n";
  out << "plot \\\n";
  for (std::size_t i = 0; i < series.size(); ++i) {
    out << "  " << gnuplot_path(data_path) << " index " << i << " using 1:2 with linespoints title " << gnuplot_label(series[i].title)
        << (i + 1 < series.size() ? ", \\\n" : "\n");
  }
  return out.str();
}

PlotFiles write_plot(const std::vector<LoadedReport>& reports, const std::string& metric, const std::string& image_path,
                     const std::string& gnuplot_program) {
  const report::RowKindSpec& kind = kind_of(reports);
  check_plot_metric(kind, metric);
  const auto dot = image_path.rfind('.');
  const std::string extension = dot == std::string::npos ? "" : image_path.substr(dot);
  if (extension != ".svg" && extension != ".png") throw InputError(image_path + ": plot output must end in .svg or .png");
  const auto series = plot_series(reports, metric);
  if (series.empty()) {
    throw InputError(metric == "busbw" ? "nothing to plot: no row has a bus bandwidth (one rank only? try --metric algbw or time)"
                                       : "nothing to plot: no row has a positive " + metric);
  }
  PlotFiles files;
  const std::string stem = image_path.substr(0, dot);
  files.data_path = stem + ".dat";
  files.script_path = stem + ".gp";
  files.image_path = image_path;
  write_file(files.data_path, plot_data_text(series));
  write_file(files.script_path, plot_script_text(series, metric, reports.front().report.benchmark + ": " + metric_label(kind, metric),
                                                 files.data_path, image_path, kind));
  ProcessSpec spec;
  spec.argv = {gnuplot_program, files.script_path};
  spec.output_path = stem + ".gnuplot.log";
  spec.timeout_s = 120;
  const ProcessOutcome outcome = run_process(spec);
  if (!outcome.started) {
    files.message = "gnuplot not found (" + outcome.start_error + "); wrote " + files.data_path + " and " + files.script_path +
                    "; install gnuplot-nox and run: gnuplot " + files.script_path;
  } else if (!outcome.ok()) {
    files.message = "gnuplot failed (" + outcome.describe() + ", see " + spec.output_path + "); data in " + files.data_path +
                    ", script in " + files.script_path;
  } else {
    files.rendered = true;
    files.message = "wrote " + image_path + " (data " + files.data_path + ", script " + files.script_path + ")";
    std::remove(spec.output_path.c_str());
  }
  return files;
}

}  // namespace collbench::summarize
