#include "summarize/cli.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/sizes.h"
#include "summarize/compare.h"
#include "summarize/input_error.h"
#include "summarize/nccl_table.h"
#include "summarize/plot.h"
#include "summarize/scaling.h"
#include "summarize/series.h"
#include "summarize/speedup.h"
#include "summarize/sweep.h"

namespace collbench::summarize {
namespace {

constexpr const char* kUsage =
    "usage: collbench COMMAND [options] ...   (every command takes --format text|markdown|csv|json)\n"
    "  table   REPORT|DIR... [--summary yes]       the nccl-tests table again, from reports (or one line each)\n"
    "  scaling REPORT|DIR... [--at SIZE]           time, busbw, speedup and efficiency across world sizes\n"
    "  speedup --by KEY [--baseline VALUE] REPORT|DIR...\n"
    "          KEY: algorithm, backend, dtype, op, placement, world_size, version, env.NAME, tag.NAME or NAME\n"
    "  compare BASE NEW [--min-effect 5%] [--alpha 0.05]\n"
    "          BASE, NEW: a report or a folder of repeated runs; exit 0 no regression, 1 slower, 2 bad input\n"
    "  plot    REPORT|DIR... --out FILE.svg|FILE.png [--metric NAME] [--gnuplot PROGRAM]\n"
    "          NAME: time or a figure of the rows' kind (default the headline): busbw, algbw (collective),\n"
    "          tflops (gemm), gbps (stream, copy), gemm_gflops, triad_gbps, relative_speed (probe)\n"
    "  sweep   [--np 1,2,4] [--env NAME=v1,v2]... [--repeat N] [--launcher 'srun --mpi=pmix'|none]\n"
    "          [--np-flag FLAG] [--timeout SECONDS] --out DIR -- BENCH [bench args]\n"
    "Every command reads every report kind (collective, gemm, stream, copy, probe), one kind at a time.\n"
    "Sizes take K/M/G (1024-based). Reports come from *_perf -J FILE (add --samples for compare).\n";

struct Arguments {
  std::string command;
  Format format = Format::kText;
  std::vector<std::string> positional;
  std::vector<std::pair<std::string, std::string>> options;  // in order; repeatable ones appear several times
  std::vector<std::string> after_dashes;                      // sweep: the benchmark and its arguments

  std::optional<std::string> last(const std::string& name) const {
    std::optional<std::string> value;
    for (const auto& [key, text] : options) {
      if (key == name) value = text;
    }
    return value;
  }
  std::vector<std::string> all(const std::string& name) const {
    std::vector<std::string> values;
    for (const auto& [key, text] : options) {
      if (key == name) values.push_back(text);
    }
    return values;
  }
};

// Every option takes a value; listing them per command turns a typo into exit 2 instead of a
// silently ignored flag.
const std::vector<std::string>& options_of(const std::string& command) {
  static const std::vector<std::string> table = {"--summary"};
  static const std::vector<std::string> scaling = {"--at"};
  static const std::vector<std::string> speedup = {"--by", "--baseline"};
  static const std::vector<std::string> compare = {"--min-effect", "--alpha"};
  static const std::vector<std::string> plot = {"--out", "--metric", "--gnuplot"};
  static const std::vector<std::string> sweep = {"--np", "--env", "--repeat", "--launcher", "--np-flag", "--timeout", "--out"};
  if (command == "table") return table;
  if (command == "scaling") return scaling;
  if (command == "speedup") return speedup;
  if (command == "compare") return compare;
  if (command == "plot") return plot;
  if (command == "sweep") return sweep;
  return table;  // not reached: parse() checks the command first
}

Arguments parse(int argc, char** argv) {
  if (argc < 2) throw InputError("no command given (try collbench --help)");
  Arguments arguments;
  arguments.command = argv[1];
  static const std::vector<std::string> commands = {"table", "scaling", "speedup", "compare", "plot", "sweep"};
  if (std::find(commands.begin(), commands.end(), arguments.command) == commands.end()) {
    throw InputError("unknown command '" + arguments.command + "' (commands: table, scaling, speedup, compare, plot, sweep)");
  }
  const auto& known = options_of(arguments.command);
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") {
      for (++i; i < argc; ++i) arguments.after_dashes.emplace_back(argv[i]);
      break;
    }
    if (arg.size() > 1 && arg[0] == '-' && arg != "-") {
      std::string value;
      bool has_value = false;
      if (const auto equals = arg.find('='); equals != std::string::npos && arg.rfind("--", 0) == 0) {
        value = arg.substr(equals + 1);
        arg = arg.substr(0, equals);
        has_value = true;
      }
      if (arg != "--format" && std::find(known.begin(), known.end(), arg) == known.end()) {
        throw InputError(arguments.command + ": unknown option " + arg);
      }
      if (!has_value) {
        if (i + 1 >= argc) throw InputError(arguments.command + ": " + arg + " needs a value");
        value = argv[++i];
      }
      if (arg == "--format") arguments.format = parse_format(value);
      else arguments.options.emplace_back(arg, value);
    } else {
      arguments.positional.push_back(arg);
    }
  }
  if (arguments.command != "sweep" && !arguments.after_dashes.empty()) throw InputError(arguments.command + ": unexpected '--'");
  return arguments;
}

double parse_number(const std::string& text, const std::string& flag) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end == text.c_str() || (*end != '\0' && std::string(end) != "%")) {
    throw InputError(flag + " expects a number, not '" + text + "'");
  }
  return *end == '%' ? value / 100 : value;
}

int parse_count(const std::string& text, const std::string& flag) {
  char* end = nullptr;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || value < 1 || value > 1000000) throw InputError(flag + " expects a positive integer, not '" + text + "'");
  return static_cast<int>(value);
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
  if (arguments.positional.empty()) throw InputError(arguments.command + ": no report given");
  auto reports = load_reports(arguments.positional);
  require_rows(reports);
  require_single_kind(reports);
  return reports;
}

void add_partial_notes(Document& document, const std::vector<LoadedReport>& reports) {
  for (const auto& note : partial_notes(reports)) document.notes.push_back(note);
  document.extra["partial_reports"] = partial_notes(reports).size();
}

int table_command(const Arguments& arguments) {
  const auto reports = load_with_rows(arguments);
  if (const auto summary = arguments.last("--summary"); summary && *summary != "no") {
    Document document = report_summary_document(reports);
    add_partial_notes(document, reports);
    print(document, arguments.format);
    return 0;
  }
  if (arguments.format == Format::kText && reports.front().report.kind == report::RowKind::kCollective) {
    std::fputs(nccl_table_text(reports).c_str(), stdout);
    return 0;
  }
  Document document = nccl_table_document(reports);
  add_partial_notes(document, reports);
  print(document, arguments.format);
  return 0;
}

int scaling_command(const Arguments& arguments) {
  const auto reports = load_with_rows(arguments);
  std::optional<std::uint64_t> at;
  if (const auto text = arguments.last("--at")) {
    try {
      at = parse_size(*text, "--at");
    } catch (const UsageError& e) {
      throw InputError(e.what());
    }
  }
  Document document = scaling_document(compute_scaling(reports), at, kind_of(reports));
  add_partial_notes(document, reports);
  print(document, arguments.format);
  return 0;
}

int speedup_command(const Arguments& arguments) {
  const auto key = arguments.last("--by");
  if (!key) throw InputError("speedup: --by KEY is required");
  const auto reports = load_with_rows(arguments);
  require_single_benchmark(reports);
  Document document = speedup_document(compute_speedup(reports, *key, arguments.last("--baseline")), kind_of(reports).size_column);
  add_partial_notes(document, reports);
  print(document, arguments.format);
  return 0;
}

int compare_command(const Arguments& arguments) {
  if (arguments.positional.size() != 2) throw InputError("compare: expects BASE and NEW (a report or a folder each)");
  CompareOptions options;
  if (const auto text = arguments.last("--min-effect")) options.min_effect = parse_number(*text, "--min-effect");
  if (const auto text = arguments.last("--alpha")) options.alpha = parse_number(*text, "--alpha");
  if (options.min_effect < 0 || options.alpha <= 0 || options.alpha >= 1) throw InputError("compare: --min-effect >= 0 and 0 < --alpha < 1");
  auto base = load_reports({arguments.positional[0]});
  auto candidate = load_reports({arguments.positional[1]});
  require_rows(base);
  require_rows(candidate);
  require_single_kind(base);
  require_single_kind(candidate);
  const CompareResult result = compare_reports(base, candidate, options);
  Document document = compare_document(result, options);
  for (const auto& note : partial_notes(base)) document.notes.push_back("BASE: " + note);
  for (const auto& note : partial_notes(candidate)) document.notes.push_back("NEW: " + note);
  print(document, arguments.format);
  return result.any_slower() ? 1 : 0;
}

int plot_command(const Arguments& arguments) {
  const auto out = arguments.last("--out");
  if (!out) throw InputError("plot: --out FILE.svg or FILE.png is required");
  const auto reports = load_with_rows(arguments);
  require_single_benchmark(reports);
  const std::string metric = arguments.last("--metric").value_or(kind_of(reports).figures.front().name);
  const PlotFiles files = write_plot(reports, metric, *out, arguments.last("--gnuplot").value_or("gnuplot"));
  Document document;
  document.notes.push_back(files.message);
  add_partial_notes(document, reports);
  document.extra["image"] = files.rendered ? nlohmann::json(files.image_path) : nlohmann::json(nullptr);
  document.extra["data"] = files.data_path;
  document.extra["script"] = files.script_path;
  document.extra["rendered"] = files.rendered;
  print(document, arguments.format);
  return 0;
}

int sweep_command(const Arguments& arguments) {
  if (!arguments.positional.empty()) throw InputError("sweep: unexpected '" + arguments.positional.front() + "' (the benchmark goes after --)");
  SweepOptions options;
  if (const auto text = arguments.last("--np")) {
    options.world_sizes.clear();
    for (const auto& part : split(*text, ',')) options.world_sizes.push_back(parse_count(part, "--np"));
  }
  for (const auto& text : arguments.all("--env")) {
    const auto equals = text.find('=');
    if (equals == std::string::npos || equals == 0) throw InputError("sweep: --env expects NAME=v1,v2, not '" + text + "'");
    options.settings.push_back({text.substr(0, equals), split(text.substr(equals + 1), ',')});
  }
  if (const auto text = arguments.last("--repeat")) options.repeat = parse_count(*text, "--repeat");
  if (const auto text = arguments.last("--launcher")) {
    options.launcher = split(*text, ' ');
    if (options.launcher.empty()) throw InputError("sweep: --launcher is empty");
  }
  options.np_flag = arguments.last("--np-flag").value_or("");
  if (const auto text = arguments.last("--timeout")) options.timeout_s = parse_number(*text, "--timeout");
  options.out_dir = arguments.last("--out").value_or("");
  options.bench = arguments.after_dashes;
  options.as_root = geteuid() == 0;
  const SweepOutcome outcome = run_sweep(options, stderr);
  print(outcome.document, arguments.format);
  return outcome.failed > 0 ? 1 : 0;
}

}  // namespace

int run_command_line(int argc, char** argv) {
  try {
    if (argc >= 2 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h" || std::string(argv[1]) == "help")) {
      std::fputs(kUsage, stdout);
      return 0;
    }
    const Arguments arguments = parse(argc, argv);
    if (arguments.command == "table") return table_command(arguments);
    if (arguments.command == "scaling") return scaling_command(arguments);
    if (arguments.command == "speedup") return speedup_command(arguments);
    if (arguments.command == "compare") return compare_command(arguments);
    if (arguments.command == "plot") return plot_command(arguments);
    return sweep_command(arguments);
  } catch (const InputError& e) {
    std::fprintf(stderr, "collbench: %s\n", e.what());
    return static_cast<int>(ExitCode::kUsage);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "collbench: error: %s\n", e.what());
    return static_cast<int>(ExitCode::kRuntimeError);
  }
}

}  // namespace collbench::summarize
