#include "summarize/plots/plot.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "core/printable.h"
#include "core/sizes.h"
#include "summarize/common/file_names.h"
#include "summarize/common/group_series.h"
#include "summarize/common/input_error.h"
#include "summarize/common/process.h"
#include "summarize/common/series.h"
#include "workloads/collectives/report/collective_rows.h"

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
    if (const std::string word = key_word(field, value); !word.empty()) title += " " + word;
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

std::vector<std::string> words_of(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

// Legend entries say only what tells the lines apart; the words every title shares go into the
// plot's title once. A legend of full titles took half the picture.
struct ShortTitles {
  std::string shared;
  std::vector<std::string> legends;
};
ShortTitles shorten_titles(const std::vector<std::string>& titles) {
  ShortTitles out;
  if (titles.empty()) return out;
  std::vector<std::string> shared;
  for (const auto& word : words_of(titles.front())) {
    bool everywhere = true;
    for (const auto& title : titles) {
      const auto words = words_of(title);
      everywhere = everywhere && std::find(words.begin(), words.end(), word) != words.end();
    }
    if (everywhere) shared.push_back(word);
  }
  for (const auto& word : shared) out.shared += (out.shared.empty() ? "" : " ") + word;
  for (const auto& title : titles) {
    std::string legend;
    for (const auto& word : words_of(title)) {
      if (std::find(shared.begin(), shared.end(), word) == shared.end()) legend += (legend.empty() ? "" : " ") + word;
    }
    out.legends.push_back(legend.empty() ? "all rows" : legend);
  }
  return out;
}

// A legend below the plot, a few entries a line: it takes height, not the plot's width.
std::string key_below(std::size_t entries, int& height) {
  height += 20 * static_cast<int>((entries + 2) / 3);
  return "set key outside below center horizontal maxcols 3 noenhanced\n";
}

std::string size_axis_lines(const report::RowKindSpec& kind, std::uint64_t smallest, std::uint64_t largest) {
  std::string lines = kind.size_is_magnitude ? "set logscale x 2\n" : "";
  if (std::string(kind.size_column) == "bytes" && smallest > 0) lines += size_tics_text(smallest, largest) + "\n";
  // A margin either side, so points at the ends are not drawn on the border.
  if (kind.size_is_magnitude && smallest > 0) {
    lines += "set xrange [" + std::to_string(static_cast<double>(smallest) / 1.5) + ":" + std::to_string(static_cast<double>(largest) * 1.5) + "]\n";
  }
  return lines;
}

// Runs gnuplot on a written script and says what happened.
void render_with_gnuplot(PlotFiles& files, const std::string& stem, const std::string& gnuplot_program) {
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
    files.message = "wrote " + files.image_path + " (data " + files.data_path + ", script " + files.script_path + ")";
    std::remove(spec.output_path.c_str());
  }
}

// IMAGE's stem and extension, refusing what gnuplot is not asked to write here.
std::pair<std::string, std::string> split_image_path(const std::string& image_path) {
  // Checked before anything is written: the .dat and .gp files share the path's stem.
  for (unsigned char c : image_path) {
    if (c < 0x20 || c == 0x7f) throw InputError("plot path has a control character: refusing to write it");
  }
  const auto dot = image_path.rfind('.');
  const auto slash = image_path.rfind('/');
  const std::string extension = dot == std::string::npos || (slash != std::string::npos && dot < slash) ? "" : image_path.substr(dot);
  if (extension != ".svg" && extension != ".png") throw InputError(image_path + ": plot output must end in .svg or .png");
  return {image_path.substr(0, image_path.size() - extension.size()), extension};
}

// A script's first lines: what wrote it, the terminal IMAGE's extension asks for (.png, else .svg),
// the output and the title, if any.
std::string script_head(const std::string& what, const std::string& image_path, int width, int height,
                        const std::optional<std::string>& title) {
  const bool png = image_path.size() >= 4 && image_path.substr(image_path.size() - 4) == ".png";
  std::string head = "# collbench " + what + "; run: gnuplot <this file>\n" +
                     (png ? "set terminal pngcairo size " : "set terminal svg dynamic size ") + std::to_string(width) + "," +
                     std::to_string(height) + "\nset output " + gnuplot_path(image_path) + "\n";
  if (title) head += "set title " + gnuplot_label(*title) + " noenhanced\n";
  return head;
}

// IMAGE itself for one picture; IMAGE's stem + "-" + name + extension for one of several.
std::string image_for(const std::string& image_path, const std::string& name, bool several) {
  if (!several) return image_path;
  const auto [stem, extension] = split_image_path(image_path);
  return stem + "-" + file_safe(name) + extension;  // one-to-one: "a/b" and "a_b" get two pictures
}

// Writes IMAGE's data (its stem + .dat) and script (+ .gp) beside it, then runs gnuplot on them.
// `script_for` writes the script for the files' paths and fills the data text.
PlotFiles write_and_render(const std::string& image_path, const std::string& gnuplot_program,
                           const std::function<std::string(const PlotFiles& files, std::string& data)>& script_for) {
  const std::string stem = split_image_path(image_path).first;
  PlotFiles files;
  files.data_path = stem + ".dat";
  files.script_path = stem + ".gp";
  files.image_path = image_path;
  std::string data;
  const std::string script = script_for(files, data);
  write_text_file(files.data_path, data);
  write_text_file(files.script_path, script);
  render_with_gnuplot(files, stem, gnuplot_program);
  return files;
}

// A series per title, its point at each size the median of the values there.
std::vector<PlotSeries> median_series(const std::map<std::string, std::map<std::uint64_t, std::vector<double>>>& grouped) {
  std::vector<PlotSeries> out;
  for (const auto& [title, by_size] : grouped) {
    PlotSeries series{title, {}};
    for (const auto& [bytes, values] : by_size) series.points.emplace_back(bytes, median(values));
    out.push_back(std::move(series));
  }
  return out;
}

}  // namespace

std::string size_tick_label(std::uint64_t bytes) {
  const char* units[] = {"", "K", "M", "G", "T", "P"};
  int unit = 0;
  double value = static_cast<double>(bytes);
  while (value >= 1024 && unit < 5) {
    value /= 1024;
    ++unit;
  }
  return formatted(value == std::floor(value) ? "%.0f%s" : "%.3g%s", value, units[unit]);
}

std::string size_tics_text(std::uint64_t smallest, std::uint64_t largest) {
  int low = 0, high = 0;
  while (low < 62 && (std::uint64_t{2} << low) <= smallest) ++low;          // 2^low <= smallest
  while (high < 63 && (std::uint64_t{1} << high) < largest) ++high;         // 2^high >= largest
  // At most about ten labels: every power of two on a short axis, every few on a long one.
  const int step = std::max(1, (high - low + 9) / 10);
  std::string text = "set xtics (";
  for (int exponent = low; exponent <= high; exponent += step) {
    const std::uint64_t at = std::uint64_t{1} << exponent;
    text += (exponent == low ? "" : ", ") + gnuplot_label(size_tick_label(at)) + " " + std::to_string(at);
  }
  return text + ")";
}

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
  const std::vector<LoadedReport> per_group = rows_per_group(reports);  // a line per concurrent group
  for (const auto& observation : observations(per_group)) {
    const auto value = value_of(*observation.row, metric);
    if (!value) continue;
    grouped[series_title(*observation.source, *observation.row)][observation.row->size].push_back(*value);
  }
  return median_series(grouped);
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
  std::vector<std::string> titles;
  std::uint64_t smallest = UINT64_MAX, largest = 0;
  for (const auto& one : series) {
    titles.push_back(one.title);
    for (const auto& point : one.points) {
      smallest = std::min(smallest, point.first);
      largest = std::max(largest, point.first);
    }
  }
  const ShortTitles short_titles = shorten_titles(titles);
  int height = 600;
  const std::string key = key_below(series.size(), height);
  // The shared words, less those the title already says (the benchmark).
  std::string shared;
  for (const auto& word : words_of(short_titles.shared)) {
    if (title.rfind(word + ":", 0) != 0) shared += (shared.empty() ? "" : " ") + word;
  }
  std::ostringstream out;
  out << script_head("plot", image_path, 1000, height, shared.empty() ? title : title + "  (" + shared + ")");
  out << size_axis_lines(kind, smallest == UINT64_MAX ? 0 : smallest, largest) << "set logscale y 10\nset grid\n";
  out << "set xlabel " << gnuplot_label(kind.size_label) << "\nset ylabel " << gnuplot_label(metric_label(kind, metric)) << "\n";
  out << key;
  out << "plot \\\n";
  for (std::size_t i = 0; i < series.size(); ++i) {
    out << "  " << gnuplot_path(data_path) << " index " << i << " using 1:2 with linespoints lw 2 title "
        << gnuplot_label(short_titles.legends[i]) << (i + 1 < series.size() ? ", \\\n" : "\n");
  }
  return out.str();
}

PlotFiles write_plot(const std::vector<LoadedReport>& reports, const std::string& metric, const std::string& image_path,
                     const std::string& gnuplot_program) {
  const report::RowKindSpec& kind = kind_of(reports);
  check_plot_metric(kind, metric);
  split_image_path(image_path);  // refuses anything but .svg and .png before any work
  const auto series = plot_series(reports, metric);
  if (series.empty()) {
    throw InputError(metric == "busbw" ? "nothing to plot: no row has a bus bandwidth (one rank only? try --metric algbw or time)"
                                       : "nothing to plot: no row has a positive " + metric);
  }
  return write_and_render(image_path, gnuplot_program, [&](const PlotFiles& files, std::string& data) {
    data = plot_data_text(series);
    return plot_script_text(series, metric, reports.front().report.benchmark + ": " + metric_label(kind, metric), files.data_path,
                            image_path, kind);
  });
}

PlotFiles write_overview_plot(const std::vector<LoadedReport>& reports, const std::string& image_path, const std::string& gnuplot_program) {
  split_image_path(image_path);  // refuses anything but .svg and .png before any work
  std::map<std::string, std::map<std::uint64_t, std::vector<double>>> by_benchmark_size;
  for (const auto& loaded : reports) {
    if (loaded.report.kind != report::kCollectiveRows) continue;
    for (const auto& row : loaded.report.rows) {
      if (row.fields.at("placement") != "in" && headline(row)) by_benchmark_size[loaded.report.benchmark][row.size].push_back(*headline(row));
    }
  }
  const std::vector<PlotSeries> series = median_series(by_benchmark_size);
  if (series.empty()) throw InputError("nothing to plot: no collective row has a bus bandwidth (one rank only?)");
  return write_and_render(image_path, gnuplot_program, [&](const PlotFiles& files, std::string& data) {
    data = plot_data_text(series);
    return plot_script_text(series, PlotMetric::kBusBandwidth, "every collective: bus bandwidth (out of place)", files.data_path,
                            image_path);
  });
}

std::string heat_map_data_text(const report::LinkMatrix& matrix, bool time) {
  std::ostringstream out;
  out.precision(9);
  for (std::size_t i = 0; i < matrix.sizes.size(); ++i) {
    if (i) out << "\n\n";
    const auto& cells = time ? matrix.sizes[i].time_us : matrix.sizes[i].gbps;
    for (const auto& line : cells) {
      for (std::size_t column = 0; column < line.size(); ++column) {
        out << (column ? " " : "");
        if (line[column]) out << *line[column];
        else out << "NaN";  // gnuplot leaves an undefined pixel blank
      }
      out << '\n';
    }
  }
  return out.str();
}

std::string heat_map_script_text(const report::LinkMatrix& matrix, bool time, const std::string& title,
                                 const std::string& data_path, const std::string& image_path) {
  const std::size_t panels = std::max<std::size_t>(1, matrix.sizes.size());
  const double last = matrix.ranks - 0.5;
  std::ostringstream out;
  out << script_head("plot (link matrix)", image_path, static_cast<int>(520 * panels), 520, std::nullopt);
  out << "set multiplot layout 1," << panels << " title " << gnuplot_label(title) << " noenhanced\n";
  out << "set xlabel 'peer rank'\nset ylabel 'rank that starts'\nset size ratio -1\n";
  out << "set xrange [-0.5:" << last << "]\nset yrange [" << last << ":-0.5]\n";
  const int step = std::max(1, matrix.ranks / 16);
  out << "set xtics " << step << "\nset ytics " << step << "\n";
  // Slow is dark whatever is drawn: high times and low bandwidths.
  out << (time ? "set palette defined (0 '#fff5eb', 1 '#fd8d3c', 2 '#7f2704')\n" : "set palette defined (0 '#7f2704', 1 '#fd8d3c', 2 '#fff5eb')\n");
  out << "set cblabel " << gnuplot_label(time ? "time per message (us)" : "bandwidth (GB/s)") << "\n";
  for (std::size_t i = 0; i < matrix.sizes.size(); ++i) {
    out << "set title " << gnuplot_label(format_size(matrix.sizes[i].bytes)) << " noenhanced\n";
    out << "plot " << gnuplot_path(data_path) << " index " << i << " matrix with image notitle\n";
  }
  out << "unset multiplot\n";
  return out.str();
}

PlotFiles write_heat_map(const LoadedReport& loaded, const std::string& metric, const std::string& image_path,
                         const std::string& gnuplot_program) {
  const std::optional<report::LinkMatrix> link_matrix = report::link_matrix_of(loaded.report);  // checked when read
  if (!link_matrix) throw InputError(loaded.path + ": no link matrix to draw (a pt2pt_perf --matrix report has one)");
  const bool time = metric == "time" || metric == "latency_us";
  if (!time && metric != "gbps") {
    throw InputError("--metric expects gbps, latency_us or time for a link matrix, not '" + metric + "'");
  }
  const report::LinkMatrix& matrix = *link_matrix;
  if (matrix.sizes.empty()) throw InputError(loaded.path + ": the link matrix has no sizes (the run stopped before its first link)");
  const std::string title = "pt2pt link matrix np=" + std::to_string(matrix.ranks) + ": " +
                            (time ? "time per message (us)" : "bandwidth (GB/s)") + "  " + tags_text(loaded.report.context);
  return write_and_render(image_path, gnuplot_program, [&](const PlotFiles& files, std::string& data) {
    data = heat_map_data_text(matrix, time);
    return heat_map_script_text(matrix, time, title, files.data_path, image_path);
  });
}

std::vector<PlotFiles> write_plots(const std::vector<LoadedReport>& reports, const std::string& metric, const std::string& image_path,
                                   const std::string& gnuplot_program) {
  split_image_path(image_path);
  // Reports grouped by benchmark, in name order: one picture each.
  std::map<std::string, std::vector<LoadedReport>> groups;
  for (const auto& loaded : reports) groups[loaded.report.benchmark].push_back(loaded);
  std::vector<PlotFiles> all;
  for (const auto& [benchmark, group] : groups) {
    require_single_kind(group);
    std::vector<const LoadedReport*> matrices;
    for (const auto& loaded : group) {
      if (report::link_matrix_of(loaded.report)) matrices.push_back(&loaded);
    }
    if (!matrices.empty()) {
      const std::string chosen = metric.empty() ? "gbps" : metric;
      const std::string base = image_for(image_path, benchmark, groups.size() > 1);
      for (std::size_t i = 0; i < matrices.size(); ++i) {
        all.push_back(write_heat_map(*matrices[i], chosen, image_for(base, std::to_string(i + 1), matrices.size() > 1), gnuplot_program));
      }
      continue;
    }
    const std::string chosen = metric.empty() ? kind_of(group).figures.front().name : metric;
    all.push_back(write_plot(group, chosen, image_for(image_path, benchmark, groups.size() > 1), gnuplot_program));
  }
  return all;
}

namespace {

const char* verdict_colour(Verdict verdict) {
  switch (verdict) {
    case Verdict::kSame: return "#2ca02c";
    case Verdict::kFaster: return "#1f77b4";
    case Verdict::kSlower: return "#d62728";
    case Verdict::kUnknown: return "#7f7f7f";
  }
  return "#000000";
}

std::string series_words(const SeriesKey& key) {
  std::string text;
  for (std::size_t i = 1; i + 1 < key.size(); ++i) {  // not the benchmark, not the size
    if (const std::string word = key_word(key[i].first, key[i].second); !word.empty()) text += (text.empty() ? "" : " ") + word;
  }
  return text;
}

}  // namespace

std::string compare_plot_script_text(const CompareResult& result, const std::string& benchmark, const std::string& data_path,
                                     const std::string& image_path, const report::RowKindSpec& kind,
                                     std::vector<std::string>* data_text) {
  // Series: the rows' keys without the size; each plotted with its own point shape, coloured by verdict.
  std::vector<std::string> titles;
  std::map<std::string, std::size_t> series_index;
  std::uint64_t smallest = UINT64_MAX, largest = 0;
  for (const auto& line : result.lines) {
    if (line.key.front().second != benchmark || line.overall) continue;
    const std::string title = series_words(line.key);
    if (series_index.emplace(title, titles.size()).second) titles.push_back(title);
    smallest = std::min(smallest, line.size);
    largest = std::max(largest, line.size);
  }
  const ShortTitles short_titles = shorten_titles(titles);
  std::ostringstream data;
  data.precision(9);
  // Block 0: the threshold per size (the largest over the series); then one block per (series, verdict).
  std::map<std::uint64_t, double> threshold;
  for (const auto& line : result.lines) {
    if (line.key.front().second == benchmark && !line.overall) threshold[line.size] = std::max(threshold[line.size], 100 * line.threshold);
  }
  data << "# threshold_percent\n";
  for (const auto& [size, percent] : threshold) data << size << ' ' << percent << '\n';
  struct Block {
    std::size_t series;
    Verdict verdict;
  };
  std::vector<Block> blocks;
  const std::vector<Verdict> verdicts = {Verdict::kSame, Verdict::kFaster, Verdict::kSlower, Verdict::kUnknown};
  for (std::size_t s = 0; s < titles.size(); ++s) {
    for (Verdict verdict : verdicts) {
      std::ostringstream block;
      block.precision(9);
      for (const auto& line : result.lines) {
        if (line.key.front().second != benchmark || line.overall || series_index[series_words(line.key)] != s || line.verdict != verdict) continue;
        // Series side by side at a size: a small offset along the log axis keeps the bars apart.
        const double offset = kind.size_is_magnitude ? std::pow(2.0, 0.12 * (static_cast<double>(s) - (titles.size() - 1) / 2.0)) : 1.0;
        block << static_cast<double>(line.size) * offset << ' ' << 100 * line.change << ' '
              << 100 * line.change_low.value_or(line.change) << ' ' << 100 * line.change_high.value_or(line.change) << '\n';
      }
      if (block.str().empty()) continue;
      data << "\n\n# " << gnuplot_label(titles[s] + " " + to_string(verdict)) << "\n" << block.str();
      blocks.push_back({s, verdict});
    }
  }
  if (data_text) data_text->push_back(data.str());
  int height = 600;
  const std::string key = key_below(verdicts.size() + titles.size() + 1, height);
  std::map<Verdict, std::size_t> counts;
  std::string overall;
  for (const auto& line : result.lines) {
    if (line.key.front().second == benchmark && !line.overall) counts[line.verdict]++;
    if (line.key.front().second == benchmark && line.overall) {
      overall = formatted("; as a whole %+.1f%% %s", 100 * line.change, to_string(line.verdict).c_str());
    }
  }
  std::string title = benchmark + ": NEW vs BASE, change of " + (result.measure == "us" ? std::string("time") : result.measure) + " per size" + overall;
  if (!short_titles.shared.empty()) title += " (" + short_titles.shared + ")";
  std::ostringstream out;
  out << script_head("compare plot", image_path, 1000, height, title);
  out << size_axis_lines(kind, smallest == UINT64_MAX ? 0 : smallest, largest);
  out << "set grid\nset xlabel " << gnuplot_label(kind.size_label) << "\n";
  out << "set ylabel " << gnuplot_label("change, NEW vs BASE (%; positive is slower), with its interval") << "\n";
  out << "set xzeroaxis lt -1\nset offsets 0, 0, graph 0.08, graph 0.08\n" << key;
  out << "plot \\\n";
  out << "  " << gnuplot_path(data_path) << " index 0 using 1:2 with lines dt 2 lc rgb '#999999' title 'threshold', \\\n";
  out << "  " << gnuplot_path(data_path) << " index 0 using 1:(-$2) with lines dt 2 lc rgb '#999999' notitle, \\\n";
  for (Verdict verdict : verdicts) {
    out << "  NaN with points pt 7 ps 1.5 lc rgb '" << verdict_colour(verdict) << "' title "
        << gnuplot_label(to_string(verdict) + " (" + std::to_string(counts[verdict]) + ")") << ", \\\n";
  }
  const int shapes[] = {7, 5, 9, 11, 13, 15};
  for (std::size_t s = 0; s < titles.size(); ++s) {
    out << "  NaN with points pt " << shapes[s % 6] << " ps 1.5 lc rgb 'black' title " << gnuplot_label(short_titles.legends[s])
        << (blocks.empty() && s + 1 == titles.size() ? "\n" : ", \\\n");
  }
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    out << "  " << gnuplot_path(data_path) << " index " << b + 1 << " using 1:2:3:4 with yerrorbars pt " << shapes[blocks[b].series % 6]
        << " ps 1.5 lw 2 lc rgb '" << verdict_colour(blocks[b].verdict) << "' notitle" << (b + 1 < blocks.size() ? ", \\\n" : "\n");
  }
  return out.str();
}

namespace {

// One plot per benchmark of `benchmarks` (one file, or FILE-<benchmark>.EXT when there are
// several): `script_for` writes the gnuplot script and fills the data text for that benchmark.
std::vector<PlotFiles> write_per_benchmark(
    const std::set<std::string>& benchmarks, const std::string& image_path, const std::string& gnuplot_program,
    const std::function<std::string(const std::string& benchmark, const PlotFiles& files, std::vector<std::string>* data)>&
        script_for) {
  split_image_path(image_path);  // refuses anything but .svg and .png before any work
  std::vector<PlotFiles> all;
  for (const auto& benchmark : benchmarks) {
    const std::string image = image_for(image_path, benchmark, benchmarks.size() > 1);
    all.push_back(write_and_render(image, gnuplot_program, [&](const PlotFiles& files, std::string& data) {
      std::vector<std::string> texts;
      const std::string script = script_for(benchmark, files, &texts);
      data = texts.front();
      return script;
    }));
  }
  return all;
}

}  // namespace

std::vector<PlotFiles> write_compare_plots(const CompareResult& result, const report::RowKindSpec& kind, const std::string& image_path,
                                           const std::string& gnuplot_program) {
  std::set<std::string> benchmarks;
  for (const auto& line : result.lines) benchmarks.insert(line.key.front().second);
  return write_per_benchmark(benchmarks, image_path, gnuplot_program, [&](const std::string& benchmark, const PlotFiles& files,
                                                                          std::vector<std::string>* data) {
    return compare_plot_script_text(result, benchmark, files.data_path, files.image_path, kind, data);
  });
}

namespace {

// history_plot_script_text's parts. The change points to mark: each time's largest change.
struct ChangeMarks {
  std::set<std::int64_t> times;
  std::map<std::int64_t, double> sizes;
  void add(std::int64_t time, double change) {
    times.insert(time);
    auto& largest = sizes[time];
    if (std::fabs(change) > std::fabs(largest)) largest = change;
  }
};

// Every series relative to its own level before its first change, so rows of very different
// times share one axis: one data block each.
void write_series_blocks(const std::vector<const HistorySeries*>& chosen, const std::vector<std::string>& titles, bool rate,
                         std::ostringstream& data, ChangeMarks& marks) {
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    const auto& series = *chosen[i];
    const std::size_t first_level_end = series.changes.empty() ? series.points.size() : series.changes.front().index;
    std::vector<double> first_level;
    for (std::size_t p = 0; p < first_level_end; ++p) first_level.push_back(series.points[p].value);
    const double reference = median(first_level);
    if (i) data << "\n\n";
    data << "# " << gnuplot_label(titles[i]) << "\n";
    for (const auto& point : series.points) {
      const double relative = rate ? reference / point.value - 1 : point.value / reference - 1;
      data << point.epoch_s << ' ' << 100 * relative << '\n';
    }
    for (const auto& change : series.changes) marks.add(series.points[change.index].epoch_s, change.change);
  }
}

// The all-rows series history judges beside the rows (history.h), relative to its own level
// before its slowdown, with the runs it set aside; its title.
std::string write_pooled_blocks(const PooledHistory& pooled, std::ostringstream& data, ChangeMarks& marks) {
  const std::string title = "all " + std::to_string(pooled.rows) + " rows (median over rows)";
  const std::size_t level_end = pooled.slowdown ? pooled.slowdown->index : pooled.points.size();
  std::vector<double> first_level;
  for (std::size_t p = 0; p < level_end; ++p) first_level.push_back(pooled.points[p].value);
  const double reference = median(first_level);
  for (const auto* runs : {&pooled.points, &pooled.set_aside}) {
    if (runs->empty()) continue;  // no block, and no plot line for it (a NaN time would stretch the axis)
    data << "\n\n# " << gnuplot_label(runs == &pooled.points ? title : "set aside") << "\n";
    for (const auto& run : *runs) data << run.epoch_s << ' ' << 100 * (run.value / reference - 1) << '\n';
  }
  if (pooled.regression) marks.add(pooled.points[pooled.slowdown->index].epoch_s, pooled.slowdown->change);
  return title;
}

// The plot command: series that changed get a colour and a legend entry, the rest stay grey; the
// pooled series in black.
void write_history_plot_lines(std::ostringstream& out, const std::vector<const HistorySeries*>& chosen, const ShortTitles& short_titles,
                              const PooledHistory* pooled, const std::string& pooled_title, const std::string& data_path) {
  out << "plot \\\n";
  out << "  NaN with lines lw 1 lc rgb '#bbbbbb' title 'rows without a change', \\\n";
  std::size_t colour_entries = 0;
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    const bool has_changes = !chosen[i]->changes.empty();
    out << "  " << gnuplot_path(data_path) << " index " << i << " using 1:2 with linespoints ";
    if (has_changes) {
      out << "lw 2 pt 7 ps 0.8 lc " << (colour_entries % 8) + 1 << " title " << gnuplot_label(short_titles.legends[i]);
      ++colour_entries;
    } else {
      out << "lw 1 pt 7 ps 0.3 lc rgb '#bbbbbb' notitle";
    }
    out << (i + 1 < chosen.size() || pooled ? ", \\\n" : "\n");
  }
  if (pooled) {
    out << "  " << gnuplot_path(data_path) << " index " << chosen.size()
        << " using 1:2 with linespoints lw 3 pt 5 ps 0.8 lc rgb '#000000' title " << gnuplot_label(pooled_title);
    if (!pooled->set_aside.empty()) {
      out << ", \\\n  " << gnuplot_path(data_path) << " index " << chosen.size() + 1
          << " using 1:2 with points pt 2 ps 1.5 lc rgb '#000000' title " << gnuplot_label("set aside (the whole machine slow)");
    }
    out << "\n";
  }
}

}  // namespace

std::string history_plot_script_text(const HistoryResult& result, const std::string& benchmark, const std::string& data_path,
                                     const std::string& image_path, std::vector<std::string>* data_text) {
  std::vector<const HistorySeries*> chosen;
  for (const auto& series : result.series) {
    if (series.key.front().second == benchmark) chosen.push_back(&series);
  }
  std::vector<std::string> titles;
  for (const auto* series : chosen) titles.push_back(series_words(series->key) + " " + size_tick_label(series->size));
  const ShortTitles short_titles = shorten_titles(titles);
  const bool rate = result.measure != "us";
  std::ostringstream data;
  data.precision(9);
  ChangeMarks marks;
  write_series_blocks(chosen, titles, rate, data, marks);
  // The pooled series only where every row is this benchmark's, as it pools whole reports.
  const PooledHistory* pooled = nullptr;
  if (result.all_rows && !result.all_rows->points.empty() && chosen.size() == result.series.size()) {
    pooled = &*result.all_rows;
  }
  const std::string pooled_title = pooled ? write_pooled_blocks(*pooled, data, marks) : std::string();
  if (data_text) data_text->push_back(data.str());
  std::size_t changed = 0;
  for (const auto* series : chosen) changed += series->changes.empty() ? 0 : 1;
  int height = 600;
  const std::size_t pooled_entries = pooled ? (pooled->set_aside.empty() ? 1 : 2) : 0;
  const std::string key = key_below(std::min<std::size_t>(changed, 12) + 1 + pooled_entries, height);
  std::string title = benchmark + ": history, " + std::to_string(marks.times.size()) + " change point(s)";
  if (!short_titles.shared.empty()) title += " (" + short_titles.shared + ")";
  std::ostringstream out;
  out << script_head("history plot", image_path, 1100, height, title);
  out << "set xdata time\nset timefmt '%s'\nset format x \"%m-%d\\n%H:%M\"\nset grid\n";
  out << "set xlabel 'run start (UTC)'\nset ylabel "
      << gnuplot_label(std::string(rate ? "rate" : "time") + " change from the first level (%; positive is slower)") << "\n";
  out << "set xzeroaxis lt -1\n" << key;
  std::size_t arrow = 0;
  for (const auto time : marks.times) {
    ++arrow;
    out << "set arrow " << arrow << " from " << time << ", graph 0 to " << time << ", graph 1 nohead dt 2 lw 2 lc rgb '#d62728'\n";
    out << "set label " << arrow << " " << gnuplot_label(formatted("%+.1f%%", 100 * marks.sizes[time])) << " at " << time << ", graph 0.97 offset 0.5,0 tc rgb '#d62728'\n";
  }
  write_history_plot_lines(out, chosen, short_titles, pooled, pooled_title, data_path);
  return out.str();
}

std::vector<PlotFiles> write_history_plots(const HistoryResult& result, const std::string& image_path, const std::string& gnuplot_program) {
  std::set<std::string> benchmarks;
  for (const auto& series : result.series) benchmarks.insert(series.key.front().second);
  return write_per_benchmark(benchmarks, image_path, gnuplot_program, [&](const std::string& benchmark, const PlotFiles& files,
                                                                          std::vector<std::string>* data) {
    return history_plot_script_text(result, benchmark, files.data_path, files.image_path, data);
  });
}

std::string model_plot_script_text(const ModelPlot& plot, const std::string& data_path, const std::string& image_path,
                                   std::string* data_text) {
  std::ostringstream data;
  data.precision(9);
  std::uint64_t smallest = UINT64_MAX, largest = 0;
  const auto extend = [&](std::uint64_t size) {
    smallest = std::min(smallest, size);
    largest = std::max(largest, size);
  };
  // Blocks: the prediction (size, time, low, high), then per world size its points and its fit.
  data << "# " << gnuplot_label(plot.predicted.title) << "\n";
  for (std::size_t i = 0; i < plot.predicted.sizes.size(); ++i) {
    extend(plot.predicted.sizes[i]);
    data << plot.predicted.sizes[i] << ' ' << plot.predicted.time_us[i] << ' ' << plot.predicted.low_us[i] << ' ' << plot.predicted.high_us[i]
         << '\n';
  }
  std::vector<std::pair<std::string, bool>> blocks;  // title, measured (points) or fitted (line)
  for (const auto* group : {&plot.measured, &plot.fitted}) {
    for (const auto& series : *group) {
      if (series.points.empty()) continue;
      data << "\n\n# " << gnuplot_label(series.title) << "\n";
      for (const auto& [size, value] : series.points) {
        extend(size);
        data << size << ' ' << value << '\n';
      }
      blocks.emplace_back(series.title, group == &plot.measured);
    }
  }
  if (data_text) *data_text = data.str();
  int height = 600;
  const std::string key = key_below(blocks.size() + 1, height);
  std::ostringstream out;
  out << script_head("model predict --plot", image_path, 1000, height, plot.title);
  out << size_axis_lines(report::row_kind_spec(report::kCollectiveRows), smallest == UINT64_MAX ? 0 : smallest, largest);
  out << "set logscale y 10\nset grid\nset xlabel 'bytes'\nset ylabel 'time (us)'\n" << key;
  out << "plot \\\n";
  out << "  " << gnuplot_path(data_path) << " index 0 using 1:3:4 with filledcurves lc rgb '#d62728' fs transparent solid 0.15 title "
      << gnuplot_label(plot.predicted.title + " (95 %)") << ", \\\n";
  out << "  " << gnuplot_path(data_path) << " index 0 using 1:2 with lines lw 2 lc rgb '#d62728' title " << gnuplot_label(plot.predicted.title);
  // A world size's points and its fit share a colour (gnuplot's linetype by world size).
  std::map<std::string, int> colour;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const std::string world = blocks[i].first.substr(blocks[i].first.find(' ') + 1);
    const int linetype = colour.emplace(world, static_cast<int>(colour.size()) + 1).first->second;
    out << ", \\\n  " << gnuplot_path(data_path) << " index " << i + 1 << " using 1:2 with "
        << (blocks[i].second ? "points pt 7 ps 1.2" : "lines dt 2 lw 1.5") << " lt " << linetype << " title " << gnuplot_label(blocks[i].first);
  }
  out << "\n";
  return out.str();
}

std::vector<PlotFiles> write_model_plots(const std::vector<ModelPlot>& plots, const std::string& image_path, const std::string& gnuplot_program) {
  split_image_path(image_path);
  if (plots.empty()) throw InputError("nothing to plot: the model holds no series");
  std::vector<PlotFiles> all;
  for (std::size_t i = 0; i < plots.size(); ++i) {
    const std::string image = image_for(image_path, std::to_string(i + 1), plots.size() > 1);
    all.push_back(write_and_render(image, gnuplot_program, [&](const PlotFiles& files, std::string& data) {
      return model_plot_script_text(plots[i], files.data_path, files.image_path, &data);
    }));
  }
  return all;
}

}  // namespace collbench::summarize
