#include "summarize/cli/cli.h"

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/command_line.h"
#include "core/error.h"
#include "core/printable.h"
#include "core/sizes.h"
#include "report/report_file.h"
#include "report/report_json.h"
#include "report/row_kind.h"
#include "summarize/runs/ab.h"
#include "summarize/verdicts/compare.h"
#include "summarize/explain/explain.h"
#include "summarize/verdicts/fingerprint.h"
#include "summarize/verdicts/history.h"
#include "summarize/common/input_error.h"
#include "summarize/models/model.h"
#include "summarize/models/model_ddp.h"
#include "summarize/models/model_trace.h"
#include "summarize/tables/nccl_table.h"
#include "summarize/plots/plot.h"
#include "summarize/tables/scaling.h"
#include "summarize/common/series.h"
#include "summarize/tables/speedup.h"
#include "summarize/runs/sweep.h"
#include "summarize/tuning/tune.h"
#include "workloads/collectives/report/collective_rows.h"
#include "workloads/ddp/report/ddp_step_rows.h"
#include "workloads/ddp/report/ddp_step_view.h"
#include "workloads/replay/report/trace_readers.h"
#include "workloads/replay/report/trace_scale.h"

namespace collbench::summarize {
namespace {

// The kinds this build reads, from the registered kinds (COLLBENCH_KINDS), so that --help names a
// new kind without an edit here.
std::string registered_kind_names() {
  std::string names;
  for (const report::RowKindSpec* spec : report::registered_row_kinds()) {
    if (!names.empty()) names += ", ";
    names += spec->name;
  }
  return names;
}

// What a command reads from its command line; each command fills the fields its flags name.
struct Arguments {
  std::string command;
  Format format = Format::kText;
  std::vector<std::string> inputs;        // REPORT|DIR... (compare: BASE NEW)
  std::vector<std::string> after_dashes;  // sweep: the benchmark and its arguments
  bool summary = false;                   // table --summary
  GroupsView groups_view = GroupsView::kEach;  // table --groups
  std::optional<std::uint64_t> at;        // scaling --at
  std::string by;                         // speedup --by
  std::optional<std::string> baseline;    // speedup --baseline
  CompareOptions compare;
  std::string out;  // plot --out
  std::string plot_out;  // compare, ab, history --plot
  HistoryOptions history;
  AbOptions ab;
  std::string metric;  // empty: the headline figure of the reports' kind
  std::string gnuplot = "gnuplot";
  SweepOptions sweep;
  TuneOptions tune;
  PredictOptions predict;  // model predict, model ddp (the link)
  DdpWhatIfOptions ddp;    // model ddp (the settings)
  // model predict --trace: a recorded job's files, their format, and what the world's all_gather and
  // the like keep at --np (replay_perf's --trace, --trace-format and --scale-counts).
  std::vector<std::string> trace_paths;
  replay::TraceFormat trace_format = replay::TraceFormat::kAuto;
  replay::ScaleCounts scale_counts = replay::ScaleCounts::kPerRank;
  bool overview = false;   // plot --overview
  std::string expect_file;    // explain, table --summary: entries over the built-in expected peaks
  std::vector<std::string> ceilings_files;  // explain, table --summary: membw/copy/envcheck reports: the memory ceiling
  bool json = false;                        // explain --json: --format json
};

using Text = const std::string;

// "5%" or "0.05".
double parse_fraction(Text& text, Text& flag) {
  const bool percent = !text.empty() && text.back() == '%';
  const double value = parse_real(percent ? text.substr(0, text.size() - 1) : text, flag);
  return percent ? value / 100 : value;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, separator)) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

void print(const Document& document, Format format) { std::fputs(render(document, format).c_str(), stdout); }

std::vector<LoadedReport> load_with_rows(const Arguments& arguments) {
  if (arguments.inputs.empty()) throw InputError(arguments.command + ": no report given");
  auto reports = load_reports(arguments.inputs);
  require_rows(reports);
  require_single_kind(reports);
  return reports;
}

void add_partial_notes(Document& document, const std::vector<LoadedReport>& reports) {
  for (const auto& note : partial_notes(reports)) document.notes.push_back(note);
  document.extra["partial_reports"] = partial_notes(reports).size();
}

// The end of a command that reads reports and judges nothing: its document, noting partial reports.
int print_with_notes(Document document, const std::vector<LoadedReport>& reports, Format format) {
  add_partial_notes(document, reports);
  print(document, format);
  return 0;
}

// The expected peaks (built in, then --expect) and the memory ceiling (--ceilings, else the
// membw/copy/envcheck reports among `reports`) of explain and table --summary.
std::pair<ExpectedPeaks, std::optional<MemoryCeiling>> expectations(const Arguments& arguments, const std::vector<LoadedReport>& reports) {
  ExpectedPeaks peaks = ExpectedPeaks::built_in();
  if (!arguments.expect_file.empty()) peaks.add_file(arguments.expect_file);
  std::optional<MemoryCeiling> ceiling = memory_ceiling_of(reports);
  for (const auto& file : arguments.ceilings_files) {
    const auto given = memory_ceiling_of(load_reports({file}));
    if (!given) throw InputError("--ceilings " + file + ": not a membw_perf, copy_perf or envcheck report");
    if (!ceiling || given->traffic_gbps > ceiling->traffic_gbps) ceiling = given;
  }
  return {std::move(peaks), ceiling};
}

int table_command(const Arguments& arguments) {
  const auto reports = load_with_rows(arguments);
  if (arguments.summary) {
    Document summary = report_summary_document(reports);
    const auto [peaks, ceiling] = expectations(arguments, reports);
    add_expected_to_summary(summary, reports, peaks, ceiling);
    return print_with_notes(std::move(summary), reports, arguments.format);
  }
  if (arguments.format == Format::kText && arguments.groups_view != GroupsView::kSummary) {
    const bool collective = reports.front().report.kind == report::kCollectiveRows;
    std::fputs((collective ? nccl_table_text(reports, arguments.groups_view) : kind_table_text(reports)).c_str(), stdout);
    return 0;
  }
  return print_with_notes(nccl_table_document(reports, arguments.groups_view), reports, arguments.format);
}

int explain_command(const Arguments& arguments) {
  if (arguments.inputs.empty()) throw InputError("explain: no report given");
  const auto reports = load_reports(arguments.inputs);
  require_rows(reports);
  const auto [peaks, ceiling] = expectations(arguments, reports);
  return print_with_notes(explain_document(reports, peaks, ceiling), reports, arguments.json ? Format::kJson : arguments.format);
}

// --expect and --ceilings, the same for explain and table.
void add_expectation_flags(CLI::App& command, Arguments& a) {
  add_text(command, "--expect", "FILE", "expected peaks replacing or adding to the built-in table's (its form: docs/summarizer.md)", a.expect_file);
  add_value(command, "--ceilings", "FILE", "a membw_perf, copy_perf or envcheck report: the host's memory ceiling for runs on CPUs\n"
            "(repeatable: the highest counts)", [&a](Text& v, Text& f) {
              if (v.empty()) throw UsageError(f + " expects a report file");
              a.ceilings_files.push_back(v);
            });
}

int scaling_command(const Arguments& arguments) {
  const auto reports = load_with_rows(arguments);
  return print_with_notes(scaling_document(compute_scaling(reports), arguments.at, kind_of(reports)), reports, arguments.format);
}

int speedup_command(const Arguments& arguments) {
  const auto reports = load_with_rows(arguments);
  require_single_benchmark(reports);
  const SpeedupResult table = compute_speedup(reports, arguments.by, arguments.baseline);
  return print_with_notes(speedup_document(table, kind_of(reports).size_column), reports, arguments.format);
}

void check_compare_options(const CompareOptions& options) {
  if (options.min_effect < 0 || options.alpha <= 0 || options.alpha >= 0.5) throw InputError("--min-effect >= 0 and 0 < --alpha < 0.5");
}

void add_plot_notes(Document& document, const std::vector<PlotFiles>& files) {
  nlohmann::json images = nlohmann::json::array();
  for (const auto& file : files) {
    document.notes.push_back(file.message);
    if (file.rendered) images.push_back(file.image_path);
  }
  document.extra["images"] = images;
}

int compare_command(const Arguments& arguments) {
  if (arguments.inputs.size() != 2) throw InputError("compare: expects BASE and NEW (a report or a folder each)");
  const CompareOptions& options = arguments.compare;
  check_compare_options(options);
  if (options.by_recording && options.paired) throw InputError("compare: --recordings judges a stored baseline unpaired; not with --paired");
  auto base = load_reports({arguments.inputs[0]});
  auto candidate = load_reports({arguments.inputs[1]});
  require_rows(base);
  require_rows(candidate);
  require_single_kind(base);
  require_single_kind(candidate);
  CompareResult result = compare_reports(base, candidate, options);
  auto difference = fingerprint_difference(fingerprint_of(base, {arguments.inputs[0]}), fingerprint_of(candidate, {arguments.inputs[1]}));
  if (!difference) difference = measurement_difference(measurement_of(base), measurement_of(candidate));
  if (difference) mark_machine_mismatch(result, *difference);
  Document document = compare_document(result, options);
  for (const auto& note : partial_notes(base)) document.notes.push_back("BASE: " + note);
  for (const auto& note : partial_notes(candidate)) document.notes.push_back("NEW: " + note);
  if (!arguments.plot_out.empty()) add_plot_notes(document, write_compare_plots(result, kind_of(base), arguments.plot_out, arguments.gnuplot));
  print(document, arguments.format);
  return result.any_slower() ? 1 : 0;
}

int ab_command(const Arguments& arguments) {
  if (!arguments.inputs.empty()) throw InputError("ab: unexpected '" + arguments.inputs.front() + "' (the commands go after --)");
  AbOptions options = arguments.ab;
  check_compare_options(arguments.compare);
  options.compare = arguments.compare;
  options.compare.paired = true;  // A and B ran back to back, run by run
  split_ab_commands(arguments.after_dashes, options);
  options.as_root = geteuid() == 0;
  const AbOutcome outcome = run_ab(options, stderr);
  Document document = outcome.document;
  if (!arguments.plot_out.empty()) {
    const auto reports = load_reports({options.out_dir + "/A"});
    add_plot_notes(document, write_compare_plots(outcome.result, kind_of(reports), arguments.plot_out, arguments.gnuplot));
  }
  print(document, arguments.format);
  return outcome.result.any_slower() ? 1 : 0;
}

int history_command(const Arguments& arguments) {
  const auto reports = load_with_rows(arguments);
  const HistoryResult result = compute_history(reports, arguments.history);
  Document document = history_document(result, arguments.history);
  add_partial_notes(document, reports);
  if (!arguments.plot_out.empty()) add_plot_notes(document, write_history_plots(result, arguments.plot_out, arguments.gnuplot));
  print(document, arguments.format);
  return result.regressions() > 0 ? 1 : 0;
}

// "5ms", "200us", "1.5s" as microseconds.
double parse_duration_us(Text& text, Text& flag) {
  for (const auto& [unit, scale] : {std::pair{"us", 1.0}, std::pair{"ms", 1e3}, std::pair{"s", 1e6}}) {
    const std::string suffix = unit;
    if (text.size() > suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0) {
      const std::string number = text.substr(0, text.size() - suffix.size());
      if (suffix == "s" && (number.back() == 'm' || number.back() == 'u')) continue;
      const double value = parse_real(number, flag, 0, 1e12);
      return value * scale;
    }
  }
  throw UsageError(flag + " expects a time with a unit (us, ms or s), e.g. 5ms; got '" + text + "'");
}

// "10Gbit", "100Gbit/s", "400Mbit", "12.5GB/s" as GB/s (1e9 bytes per second).
double parse_bandwidth_gbps(Text& text, Text& flag) {
  for (const auto& [unit, scale] : {std::pair{"Gbit/s", 0.125}, std::pair{"Gbit", 0.125}, std::pair{"Mbit/s", 1.25e-4},
                                    std::pair{"Mbit", 1.25e-4}, std::pair{"GB/s", 1.0}, std::pair{"MB/s", 1e-3}}) {
    const std::string suffix = unit;
    if (text.size() > suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0) {
      const double value = parse_real(text.substr(0, text.size() - suffix.size()), flag, 0, 1e12) * scale;
      if (!(value > 0)) throw UsageError(flag + " must be above 0, got '" + text + "'");
      return value;
    }
  }
  throw UsageError(flag + " expects a rate with a unit (Gbit, Mbit, GB/s or MB/s), e.g. 10Gbit; got '" + text + "'");
}

// model predict MODEL --trace FILE...: the trace read and checked as replay_perf reads it, scaled to
// --np (the trace's own ranks without it) as replay_perf --scale scales it, then priced.
int predict_trace_command(const Arguments& arguments, const std::string& model_path) {
  if (!arguments.plot_out.empty() || !arguments.predict.sizes.empty()) {
    throw InputError("model predict --trace: --plot and --sizes price sizes, not a trace: leave them out");
  }
  const Model model = read_model_file(model_path);
  std::string name = arguments.trace_paths.front();
  if (arguments.trace_paths.size() > 1) name += " and " + std::to_string(arguments.trace_paths.size() - 1) + " more";
  name = printable(name);
  const replay::Trace recorded = replay::read_trace(arguments.trace_paths, arguments.trace_format);
  replay::check_trace(recorded, recorded.world_size, name);
  const replay::TraceScale scale{arguments.predict.world_size > 0 ? arguments.predict.world_size : recorded.world_size, arguments.scale_counts};
  const replay::Trace scaled = replay::scale_trace(recorded, scale, name, "--np");
  PredictOptions options = arguments.predict;
  options.world_size = scaled.world_size;
  Document document = trace_prediction_document(predict_trace(model, scaled, options), name);
  const std::vector<std::string> scaling = replay::scale_notes(recorded, scale);
  document.notes.insert(document.notes.begin(), scaling.begin(), scaling.end());
  document.extra["scale"] = replay::scale_key(recorded, scale);
  print(document, arguments.format);
  return 0;
}

int model_command(const Arguments& arguments) {
  const std::string action = arguments.inputs.empty() ? "" : arguments.inputs.front();
  const std::vector<std::string> rest(arguments.inputs.begin() + (arguments.inputs.empty() ? 0 : 1), arguments.inputs.end());
  if (!arguments.plot_out.empty() && action != "predict") throw InputError("model: --plot draws predictions: use it with 'model predict'");
  if (action == "fit") {
    if (rest.empty()) throw InputError("model fit: no report given");
    const auto reports = load_reports(rest);
    require_rows(reports);
    const Model model = fit_model(reports);
    if (!arguments.out.empty()) report::write_json_atomically(arguments.out, model_json(model));
    Document document = fit_document(model);
    if (!arguments.out.empty()) document.notes.push_back("wrote " + arguments.out);
    add_partial_notes(document, reports);
    print(document, arguments.format);
    return 0;
  }
  if (action == "predict") {
    if (rest.size() != 1) throw InputError("model predict: expected one model file (from collbench model fit --out)");
    if (!arguments.trace_paths.empty()) return predict_trace_command(arguments, rest.front());
    const Model model = read_model_file(rest.front());
    if (arguments.predict.world_size < 1) throw InputError("model predict: --np is required");
    Document document = predict_document(model, arguments.predict);
    if (!arguments.plot_out.empty()) add_plot_notes(document, write_model_plots(model_plots(model, arguments.predict), arguments.plot_out, arguments.gnuplot));
    print(document, arguments.format);
    return 0;
  }
  if (action == "ddp") {
    if (rest.size() != 2) throw InputError("model ddp: expected MODEL.json (from collbench model fit --out) and a ddp_step_perf report");
    const Model model = read_model_file(rest[0]);
    if (arguments.predict.world_size < 1) throw InputError("model ddp: --np is required");
    const auto loaded = load_reports({rest[1]});
    if (loaded.size() != 1) throw InputError("model ddp: " + rest[1] + " holds " + std::to_string(loaded.size()) + " reports; give one ddp_step_perf report");
    if (loaded.front().report.kind != report::kDdpStepRows) {
      throw InputError("model ddp: " + loaded.front().path + " holds " + report::row_kind_spec(loaded.front().report.kind).name +
                       " rows; expected a ddp_step_perf report");
    }
    std::vector<report::DdpStepRow> rows;
    try {
      rows = report::read_ddp_rows(loaded.front().path);
    } catch (const report::ReportFormatError& e) {
      throw InputError(e.what());
    }
    DdpWhatIfOptions options = arguments.ddp;
    options.link = arguments.predict;
    const DdpWhatIf what_if = ddp_what_if(model, loaded.front().report.context, rows, loaded.front().path, options);
    return print_with_notes(ddp_document(what_if, options), loaded, arguments.format);
  }
  throw InputError("model: expected 'fit REPORT|DIR...', 'predict MODEL.json' or 'ddp MODEL.json DDP_REPORT.json', not '" + action + "'");
}

int plot_command(const Arguments& arguments) {
  if (arguments.inputs.empty()) throw InputError("plot: no report given");
  auto reports = load_reports(arguments.inputs);
  require_rows(reports);
  // A folder of several benchmarks (the main job's) gives one picture each, or with --overview one for all.
  const auto files = arguments.overview ? std::vector<PlotFiles>{write_overview_plot(reports, arguments.out, arguments.gnuplot)}
                                        : write_plots(reports, arguments.metric, arguments.out, arguments.gnuplot);
  Document document;
  add_plot_notes(document, files);
  add_partial_notes(document, reports);
  if (files.size() == 1) {
    document.extra["image"] = files.front().rendered ? nlohmann::json(files.front().image_path) : nlohmann::json(nullptr);
    document.extra["data"] = files.front().data_path;
    document.extra["script"] = files.front().script_path;
    document.extra["rendered"] = files.front().rendered;
  }
  print(document, arguments.format);
  return 0;
}

int sweep_command(const Arguments& arguments) {
  if (!arguments.inputs.empty()) throw InputError("sweep: unexpected '" + arguments.inputs.front() + "' (the benchmark goes after --)");
  SweepOptions options = arguments.sweep;
  options.bench = arguments.after_dashes;
  options.as_root = geteuid() == 0;
  const SweepOutcome outcome = run_sweep(options, stderr);
  print(outcome.document, arguments.format);
  return outcome.failed > 0 ? 1 : 0;
}

int tune_command(const Arguments& arguments) {
  if (!arguments.inputs.empty()) throw InputError("tune: unexpected '" + arguments.inputs.front() + "' (the benchmark goes after --)");
  TuneOptions options = arguments.tune;
  check_compare_options(arguments.compare);
  options.ab.compare = arguments.compare;
  options.ab.as_root = geteuid() == 0;
  options.bench = arguments.after_dashes;
  const TuneOutcome outcome = options.verify_file.empty() ? run_tune(options, stderr) : run_verify(options, stderr);
  print(outcome.document, arguments.format);
  return outcome.exit_code;
}

void add_gnuplot_flag(CLI::App& command, Arguments& a) {
  add_text(command, "--gnuplot", "PROGRAM", "the gnuplot to run (default gnuplot)", a.gnuplot);
}

// --plot (what it draws) and --gnuplot, for the commands that can also draw.
void add_plot_flags(CLI::App& command, Arguments& a, const std::string& what) {
  add_text(command, "--plot", "FILE.png|FILE.svg", what, a.plot_out);
  add_gnuplot_flag(command, a);
}

// How ab and sweep start each run: the launcher, its rank-count flag, and a time limit per `unit`.
template <class LaunchOptions>
void add_launch_flags(CLI::App& command, LaunchOptions& o, const std::string& unit) {
  add_value(command, "--launcher", "'srun --mpi=pmix'|none", "launcher before the rank-count flag (default: mpirun)",
            [&o](const std::string& v, const std::string& f) {
              o.launcher = split(v, ' ');
              if (o.launcher.empty()) throw UsageError(f + " is empty");
            });
  add_text(command, "--np-flag", "FLAG", "the launcher's rank-count flag (default -n for srun, else -np)", o.np_flag);
  add_real(command, "--timeout", "SECONDS", "kill " + unit + " after this long (default 0 = never)", o.timeout_s, 0, 1e9);
}

// --figure, the same for compare, ab and history.
void add_figure_flag(CLI::App& command, RunFigure& figure, const std::string& default_text) {
  add_value(command, "--figure", "min|p10|p25|p50|mean", "each run's figure per timed row (default " + default_text + ")",
            [&figure](Text& v, Text& f) {
              if (v != "min" && v != "p10" && v != "p25" && v != "p50" && v != "mean") {
                throw UsageError(f + " expects min, p10, p25, p50 or mean, not '" + v + "'");
              }
              figure = parse_run_figure(v);
            });
}

// A flag that takes one of two words: `chose_yes` is whether it was `yes`.
void add_either(CLI::App& command, const std::string& flag, const std::string& yes, const std::string& no, const std::string& help, bool& chose_yes) {
  add_value(command, flag, yes + "|" + no, help, [&chose_yes, yes, no](Text& v, Text& f) {
    if (v != yes && v != no) throw UsageError(f + " expects " + yes + " or " + no + ", not '" + v + "'");
    chose_yes = v == yes;
  });
}

// --state-guard, the same for compare (unpaired) and history.
void add_state_guard_flag(CLI::App& command, bool& guard, const std::string& what) { add_either(command, "--state-guard", "on", "off", what, guard); }

void declare_compare_flags(CLI::App& command, Arguments& a) {
  add_figure_flag(command, a.compare.figure, "p10: the low tail, which load cannot fake");
  add_value(command, "--min-effect", "X|X%", "smallest change that counts (default 3%); SAME's band, unless the run-to-run spread is larger",
            [&a](Text& v, Text& f) { a.compare.min_effect = parse_fraction(v, f); });
  add_value(command, "--alpha", "P", "error of each side of the interval (default 0.05: a 90% interval)",
            [&a](Text& v, Text& f) { a.compare.alpha = parse_fraction(v, f); });
  add_either(command, "--correction", "holm", "none", "over the rows, for SLOWER and FASTER (default holm)", a.compare.holm);
}

// Every command, named here once: its help, its flags and what it runs.
struct Command {
  const char* name;
  const char* synopsis;  // its arguments, for the usage line
  const char* help;
  void (*declare)(CLI::App&, Arguments&);
  int (*run)(const Arguments&);
};

const Command kCommands[] = {
    {"table", "REPORT|DIR... [options]", "the nccl-tests table again, from reports (or one line each)",
     [](CLI::App& command, Arguments& a) {
       add_value(command, "--summary", "yes|no", "one line per report instead of the table", [&a](Text& v, Text& f) { a.summary = parse_yes_no(v, f); });
       add_expectation_flags(command, a);
       add_value(command, "--groups", "each|aggregate|summary", "a report of concurrent groups: one block per group (each, the default),\n"
                 "the aggregate's (every group's bytes over the slowest group's time, busbw summed), or one line per\n"
                 "group (its SLOW verdict, busbw at the largest size, contention with --alone) and the aggregate's", [&a](Text& v, Text& f) {
                   if (v != "each" && v != "aggregate" && v != "summary") throw UsageError("unknown value '" + v + "' for " + f + " (use each, aggregate or summary)");
                   a.groups_view = v == "each" ? GroupsView::kEach : v == "aggregate" ? GroupsView::kAggregate : GroupsView::kSummary;
                 });
     },
     table_command},
    {"explain", "REPORT|DIR... [--expect FILE] [--ceilings FILE] [options]",
     "is this number right? per collective: latency- or bandwidth-bound size ranges (the report's own\n"
     "alpha-beta fit), busbw at the largest sizes as a fraction of what the path should give (a sourced\n"
     "table of links, the NICs in the report's inventory, or the host's measured memory ceiling),\n"
     "a verdict (ok, low, cannot say) and the known reasons for a gap",
     [](CLI::App& command, Arguments& a) {
       add_expectation_flags(command, a);
       add_flag(command, "--json", "the same as --format json", a.json);
     },
     explain_command},
    {"scaling", "REPORT|DIR... [options]", "time, busbw, speedup and efficiency across world sizes",
     [](CLI::App& command, Arguments& a) {
       add_value(command, "--at", "SIZE", "only this message size", [&a](Text& v, Text& f) { a.at = parse_size(v, f); });
     },
     scaling_command},
    {"speedup", "--by KEY REPORT|DIR... [options]", "speedup tables: one column per value of KEY",
     [](CLI::App& command, Arguments& a) {
       add_text(command, "--by", "KEY", "algorithm, backend, dtype, op, placement, world_size, version, env.NAME, tag.NAME or NAME", a.by)
           ->required();
       add_value(command, "--baseline", "VALUE", "the column the others are compared with (default: the first)",
                 [&a](Text& v, Text&) { a.baseline = v; });
     },
     speedup_command},
    {"compare", "BASE NEW [options]",
     "regression verdicts from each run's p10 time (3+ runs a side; paired: 5+);\n"
     "BASE, NEW: a report or a folder of repeated runs; SAME, FASTER, SLOWER or UNKNOWN per row;\n"
     "exit 0 no regression (UNKNOWN included), 1 slower, 2 bad input",
     [](CLI::App& command, Arguments& a) {
       declare_compare_flags(command, a);
       add_flag(command, "--paired", "pair runs by file name (folders written by ab: A/run-K.json, B/run-K.json)", a.compare.paired);
       add_flag(command, "--recordings",
                "BASE is a stored baseline of recordings made at different times (its recording-*/ folders;\n"
                "scripts/ci-perf.sh --update-baseline adds one): judged against the spread between recordings;\n"
                "SLOWER needs runs from 3 recordings", a.compare.by_recording);
       add_state_guard_flag(command, a.compare.state_guard,
                            "unpaired: set aside runs whose reports' state probe (a cache-line round trip) was more than 2x\n"
                            "from the usual level of all runs: made in another machine state (default on)");
       add_plot_flags(command, a, "also draw the change per size with its interval and verdict");
     },
     compare_command},
    {"ab", "--out DIR [options] -- CMD_A ::: CMD_B",
     "runs A and B interleaved (A B B A A B ...), a report each, and compares them (A is BASE)\n"
     "until every row is decided or --max-runs; exit as compare",
     [](CLI::App& command, Arguments& a) {
       AbOptions& o = a.ab;
       add_integer(command, "--runs", "runs a side before the first verdict (default 3)", o.runs, 1, 1000000);
       add_integer(command, "--max-runs", "runs a side at most while rows stay UNKNOWN (default 10)", o.max_runs, 1, 1000000);
       add_integer(command, "--state-reruns", "a run pair whose runs a cache-line round trip between two CPUs saw in two machine\n"
                   "states (>2x apart) is set aside and run again, this often at most (default 2; 0: never)", o.state_reruns, 0, 100);
       add_integer(command, "--np", "ranks (default 1)", o.world_size, 1, 1000000);
       add_launch_flags(command, o, "a run");
       add_text(command, "--out", "DIR", "DIR/A and DIR/B: a report and a log per run", o.out_dir)->required();
       declare_compare_flags(command, a);
       add_plot_flags(command, a, "also draw the comparison");
     },
     ab_command},
    {"history", "REPORT|DIR... [options]",
     "change points over dated runs (context.start_time), per row series and all rows as one;\n"
     "exit 1 when a series' latest change is a slowdown (after Holm's correction over the series)",
     [](CLI::App& command, Arguments& a) {
       HistoryOptions& o = a.history;
       add_figure_flag(command, o.figure, "p10: the low tail, which load cannot fake; then the median over\n"
                       "the run's cycles (-N), which a machine state in a few of them, fast or slow, cannot move");
       add_value(command, "--min-change", "X|X%", "smallest change that counts (default 5%)",
                 [&o](Text& v, Text& f) { o.min_change = parse_fraction(v, f); });
       add_value(command, "--alpha", "P", "false-change rate of each split's permutation test (default 0.05)",
                 [&o](Text& v, Text& f) { o.alpha = parse_fraction(v, f); });
       add_integer(command, "--permutations", "permutations per test (default 999)", o.permutations, 19, 1000000);
       add_value(command, "--min-segment", "N", "runs a change must hold, and runs before it (default 3: the fewest whose median one odd run cannot move)",
                 [&o](Text& v, Text& f) { o.min_segment = static_cast<std::size_t>(parse_integer(v, f, 1, 1000000)); });
       add_either(command, "--correction", "holm", "none", "over the series, for the exit code (default holm)", o.holm);
       add_either(command, "--pool", "rows", "none", "also judge all rows as one series, at alpha / 2 (default rows)", o.pool_rows);
       add_state_guard_flag(command, o.state_guard,
                            "set aside runs whose reports' state probe (a cache-line round trip) was more than 2x from\n"
                            "the series' usual level: made in another machine state (default on)");
       add_value(command, "--exponent", "A", "E-divisive's distance |x - y|^A, 0 < A < 2 (default 0.5)", [&o](Text& v, Text& f) {
         o.exponent = parse_real(v, f, 0, 2);
         if (!(o.exponent > 0 && o.exponent < 2)) throw UsageError(f + " must lie strictly between 0 and 2, got '" + v + "'");
       });
       add_plot_flags(command, a, "also draw every series with its changes marked");
     },
     history_command},
    {"plot", "REPORT|DIR... --out FILE.svg|FILE.png [options]",
     "busbw, algbw or time against size, with gnuplot; one picture per benchmark\n"
     "(FILE-BENCHMARK.png when the reports hold several)",
     [](CLI::App& command, Arguments& a) {
       add_text(command, "--out", "FILE.svg|FILE.png", "the image to write", a.out)->required();
       add_value(command, "--metric", "NAME", "time or a figure of the rows' kind (default its headline): busbw, algbw; tflops; gbps; gemm_gflops, triad_gbps, relative_speed",
                 [&a](Text& v, Text&) { a.metric = v; });
       add_flag(command, "--overview", "one picture of every collective's bus bandwidth against size", a.overview);
       add_gnuplot_flag(command, a);
     },
     plot_command},
    {"model", "fit REPORT|DIR... [--out MODEL.json] | predict MODEL.json --np N [options] | predict MODEL.json --trace FILE... [--np N] | ddp MODEL.json DDP_REPORT.json --np N [options]",
     "latency-bandwidth models: fit alpha and beta per world size (piecewise), across world sizes (the\n"
     "algorithm's cost form) and, where ranks span hosts, within and between hosts; predict other world\n"
     "sizes, sizes and links, with intervals, or a recorded job's communication (--trace, replay_perf's\n"
     "traces) at N ranks; ddp: a DDP step's time, exposed communication and samples/s from the all_reduce\n"
     "fit and a ddp_step_perf report, per bucket size, gradient dtype and accumulation",
     [](CLI::App& command, Arguments& a) {
       add_text(command, "--out", "MODEL.json", "fit: write the model here", a.out);
       add_plot_flags(command, a, "predict: draw each series' measured points, fits and prediction (with its interval) here");
       add_integer(command, "--np", "predict, ddp: ranks (predict --trace: the job at this many ranks, as replay_perf --scale; default its own)",
                   a.predict.world_size, 1, 1 << 24);
       add_value(command, "--trace", "FILE", "predict: a recorded job's communication instead of sizes (replay_perf's traces, docs/replay.md);\n"
                 "repeat it for one file per rank", [&a](Text& v, Text& f) {
         if (v.empty()) throw UsageError(f + " expects a file");
         a.trace_paths.push_back(v);
       });
       add_value(command, "--trace-format", "FORMAT", "predict --trace: auto (default), nccl-log, kineto or execution-trace", [&a](Text& v, Text& f) {
         a.trace_format = replay::trace_format_flag(v, f);
       });
       add_value(command, "--scale-counts", "KEEP", "predict --trace: what the world's all_gather and the like keep at --np: per-rank (default) or total",
                 [&a](Text& v, Text& f) { a.scale_counts = replay::scale_counts_flag(v, f); });
       add_integer(command, "--ranks-per-host", "predict, ddp: ranks per host, consecutive (default: all on one)", a.predict.ranks_per_host, 1,
                   1 << 24);
       add_value(command, "--inter-latency", "TIME", "predict, ddp: latency of the link between hosts, e.g. 5ms (replaces the fitted one)",
                 [&a](Text& v, Text& f) { a.predict.inter_latency_us = parse_duration_us(v, f); });
       add_value(command, "--inter-bandwidth", "RATE", "predict, ddp: bandwidth of the link between hosts, e.g. 10Gbit (replaces the fitted one)",
                 [&a](Text& v, Text& f) { a.predict.inter_bandwidth_gbps = parse_bandwidth_gbps(v, f); });
       add_value(command, "--sizes", "LIST", "predict: sizes (default: the fitted range, powers of two)", [&a](Text& v, Text& f) {
         a.predict.sizes.clear();
         for (const auto& part : split(v, ',')) a.predict.sizes.push_back(parse_size(part, f));
         if (a.predict.sizes.empty()) throw UsageError(f + " expects a list of sizes");
       });
       add_value(command, "--bucket-mb", "LIST", "ddp: bucket caps in MiB, e.g. 1,25,100 (default: the report's)", [&a](Text& v, Text& f) {
         a.ddp.bucket_mb.clear();
         for (const auto& part : split(v, ',')) a.ddp.bucket_mb.push_back(parse_real(part, f, 1e-6, 1e9));
         if (a.ddp.bucket_mb.empty()) throw UsageError(f + " expects a list of sizes in MiB");
       });
       add_value(command, "--grad-dtype", "LIST", "ddp: float32, float16, bfloat16 (default: the report's)", [&a](Text& v, Text& f) {
         a.ddp.grad_dtypes = split(v, ',');
         for (const auto& dtype : a.ddp.grad_dtypes) {
           if (dtype != "float32" && dtype != "float16" && dtype != "bfloat16") {
             throw UsageError(f + " expects float32, float16 or bfloat16, not '" + dtype + "'");
           }
         }
         if (a.ddp.grad_dtypes.empty()) throw UsageError(f + " expects a list of dtypes");
       });
       add_value(command, "--accumulate", "LIST", "ddp: micro-steps per optimizer step, e.g. 1,4 (default: the report's)", [&a](Text& v, Text& f) {
         a.ddp.accumulate.clear();
         for (const auto& part : split(v, ',')) a.ddp.accumulate.push_back(static_cast<int>(parse_integer(part, f, 1, 1000000)));
         if (a.ddp.accumulate.empty()) throw UsageError(f + " expects a list of counts");
       });
     },
     model_command},
    {"tune", "--out DIR --np N (--mpi-algorithms|--gloo-algorithms|--nccl-algos/--nccl-protos) LIST -- BENCH [args] | --verify FILE ...",
     "runs each candidate setting against the library's default interleaved (as ab), keeps a candidate at\n"
     "a size only where ab's verdict is FASTER, merges neighbouring sizes into ranges and writes the library's\n"
     "tuning file (Open MPI dynamic rules, NCCL example tuner CSV, gloo --algo-file); --verify FILE runs the\n"
     "file against the default and reports each range's change; exit as ab",
     [](CLI::App& command, Arguments& a) {
       TuneOptions& o = a.tune;
       const auto list = [](std::vector<std::string>& target) {
         return [&target](Text& v, Text& f) {
           target = split(v, ',');
           if (target.empty()) throw UsageError(f + " expects a list");
         };
       };
       add_value(command, "--mpi-algorithms", "all|LIST", "Open MPI tuned algorithms by number or name, e.g. ring,4", list(o.request.mpi_algorithms));
       add_value(command, "--gloo-algorithms", "all|LIST", "gloo all_reduce --algo values (ring, ring_chunked, halving_doubling, bcube)",
                 list(o.request.gloo_algorithms));
       add_value(command, "--nccl-algos", "LIST", "NCCL_ALGO values, e.g. Ring,Tree (with --nccl-protos)", list(o.request.nccl_algorithms));
       add_value(command, "--nccl-protos", "LIST", "NCCL_PROTO values, e.g. LL,LL128,Simple", list(o.request.nccl_protocols));
       add_value(command, "--nccl-channels", "LIST", "also channel counts, e.g. 2,4, run through --nccl-tuner-plugin (default: NCCL's own)", list(o.request.nccl_channels));
       add_text(command, "--verify", "FILE", "run this tuning file against the default instead of tuning", o.verify_file);
       add_text(command, "--nccl-tuner-plugin", "LIB", "NCCL's tuner plugin for --verify and --nccl-channels (NCCL_TUNER_PLUGIN)",
                o.tuner_plugin);
       add_value(command, "--rules-format", "classic|json",
                 "Open MPI's rules file: classic (4.1, 5.0) or json (6.0 and later); default: the runs' Open MPI version's",
                 [&o](Text& v, Text& f) {
                   if (v != "classic" && v != "json") throw UsageError(f + " expects classic or json, not '" + v + "'");
                   o.rules_form = v == "json" ? OpenMpiRulesForm::kJson : OpenMpiRulesForm::kClassic;
                 });
       AbOptions& ab = o.ab;
       add_integer(command, "--runs", "run pairs a candidate before the first verdict (default 3)", ab.runs, 1, 1000000);
       add_integer(command, "--max-runs", "run pairs a candidate at most while sizes stay UNKNOWN (default 10)", ab.max_runs, 1, 1000000);
       add_integer(command, "--state-reruns", "as ab: a pair seen in two machine states runs again, this often at most (default 2)",
                   ab.state_reruns, 0, 100);
       add_integer(command, "--np", "ranks (default 1)", ab.world_size, 1, 1000000);
       add_launch_flags(command, ab, "a run");
       add_text(command, "--out", "DIR", "an ab folder per candidate, the tuning file and decision.md", ab.out_dir)->required();
       declare_compare_flags(command, a);
     },
     tune_command},
    {"sweep", "[options] --out DIR -- BENCH [bench args]", "runs a benchmark over world sizes, env settings and repeats",
     [](CLI::App& command, Arguments& a) {
       SweepOptions& o = a.sweep;
       add_value(command, "--np", "LIST", "world sizes, e.g. 1,2,4 (default 1)", [&o](Text& v, Text& f) {
         o.world_sizes.clear();
         for (const auto& part : split(v, ',')) o.world_sizes.push_back(static_cast<int>(parse_integer(part, f, 1, 1000000)));
       });
       add_value(command, "--env", "NAME=v1,v2", "an environment variable and its values (repeatable)", [&o](Text& v, Text& f) {
         const auto equals = v.find('=');
         if (equals == std::string::npos || equals == 0) throw UsageError(f + " expects NAME=v1,v2, not '" + v + "'");
         o.settings.push_back({v.substr(0, equals), split(v.substr(equals + 1), ',')});
       });
       add_integer(command, "--repeat", "runs of each point (default 1)", o.repeat, 1, 1000000);
       add_launch_flags(command, o, "a point");
       add_text(command, "--out", "DIR", "reports, logs, tables and plots", o.out_dir)->required();
     },
     sweep_command},
};

// Parses the arguments into `arguments`; returns the help text to print instead when --help was asked for.
std::optional<std::string> parse(std::vector<std::string> args, Arguments& arguments) {
  // Everything after the first "--" is sweep's (or ab's) benchmark command, never collbench's flags.
  const auto dashes = std::find(args.begin(), args.end(), "--");
  const bool has_dashes = dashes != args.end();
  if (has_dashes) arguments.after_dashes.assign(dashes + 1, args.end());
  args.erase(dashes, args.end());
  if (args.empty()) throw InputError("no command given (try collbench --help)");
  if (args[0] == "help") args[0] = "--help";
  CommandLine command_line("collbench COMMAND [options] ...", "Reports in, answers out: tables, scaling, speedup, verdicts, plots; and sweeps.");
  CLI::App& app = command_line.app();
  app.set_help_flag("-h,--help", "this text (COMMAND --help: the command's flags)");
  app.require_subcommand(1);
  app.footer("Every command takes --format text|markdown|csv|json and reads every report kind (" + registered_kind_names() +
             "),\none kind at a time. Sizes take K/M/G (1024-based).\n"
             "Reports come from *_perf -J FILE; compare, ab and history judge each run's p10 time (--figure).\n"
             "Exit codes: 0 ok, 1 regression (compare, ab; history: a latest change is a slowdown), failed points\n"
             "(sweep) or runtime error, 2 bad usage or input.");
  for (const Command& command : kCommands) {
    CLI::App* sub = app.add_subcommand(command.name, command.help)->group("Commands");
    set_usage(*sub, std::string("collbench ") + command.name + " " + command.synopsis);
    sub->set_help_flag("-h,--help", "this text");
    sub->add_option("inputs", arguments.inputs)->group("");  // reports; named in the usage line
    add_value(*sub, "--format", "text|markdown|csv|json", "output format (default text)",
              [&arguments](Text& v, Text&) { arguments.format = parse_format(v); });
    command.declare(*sub, arguments);
    sub->final_callback([&arguments, name = command.name] { arguments.command = name; });
  }
  if (args[0][0] != '-' && app.get_subcommands([&](CLI::App* command) { return command->get_name() == args[0]; }).empty()) {
    throw InputError("unknown command '" + args[0] + "' (see collbench --help)");
  }
  try {
    command_line.parse(args);
  } catch (const CLI::CallForHelp&) {
    return command_line.help();
  }
  if (arguments.command != "sweep" && arguments.command != "ab" && arguments.command != "tune" && has_dashes) throw InputError(arguments.command + ": unexpected '--'");
  return std::nullopt;
}

}  // namespace

int run_command_line(int argc, char** argv) {
  try {
    Arguments arguments;
    if (const auto help = parse(std::vector<std::string>(argv + 1, argv + argc), arguments)) {
      std::fputs(help->c_str(), stdout);
      return 0;
    }
    for (const Command& command : kCommands) {
      if (arguments.command == command.name) return command.run(arguments);
    }
    throw InputError("no command given (try collbench --help)");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "collbench: error: %s\n", printable(e.what()).c_str());  // may quote a file
    const bool bad_input = dynamic_cast<const InputError*>(&e) || dynamic_cast<const UsageError*>(&e);
    return static_cast<int>(bad_input ? ExitCode::kUsage : ExitCode::kRuntimeError);
  }
}

}  // namespace collbench::summarize
