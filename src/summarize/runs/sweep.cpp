#include "summarize/runs/sweep.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>

#include "core/printable.h"
#include "report/report_json.h"
#include "summarize/common/file_names.h"
#include "summarize/common/input_error.h"
#include "summarize/plots/plot.h"
#include "summarize/common/process.h"
#include "summarize/tables/scaling.h"
#include "summarize/tables/speedup.h"

namespace collbench::summarize {
namespace {

namespace fs = std::filesystem;

std::string basename_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool is_default_launcher(const SweepOptions& options) { return options.launcher.empty(); }
bool is_no_launcher(const SweepOptions& options) { return options.launcher.size() == 1 && options.launcher[0] == "none"; }

// The benchmark's own argument vector in a point's command: what its report records as argv.
std::vector<std::string> benchmark_argv(const SweepOptions& options, const SweepPoint& point, const std::string& report_path) {
  std::vector<std::string> argv = options.bench;
  argv.insert(argv.end(), {"-J", report_path, "--overwrite", "--tag", "np=" + std::to_string(point.world_size), "--tag",
                           "repeat=" + std::to_string(point.repeat)});
  for (const auto& [name, value] : point.env) argv.insert(argv.end(), {"--tag", name + "=" + value});
  return argv;
}

// A point is finished when its report is complete; a partial or unreadable report is run again.
// A report of another command in the point's place is not this sweep's: resuming over it would
// mix two experiments, so the sweep refuses before running anything.
bool finished(const std::string& report_path, const std::vector<std::string>& expected_argv) {
  std::error_code error;
  if (!fs::exists(report_path, error)) return false;
  report::Report report;
  try {
    report = report::read_report_file(report_path);
  } catch (const report::ReportFormatError&) {
    return false;
  }
  if (report.context.argv != expected_argv) {
    throw InputError("sweep: " + report_path + " holds a run of another command (" + joined(report.context.argv, " ") +
                     "); use a new --out folder or remove it");
  }
  return report.status == "complete";
}

std::string describe(const SweepPoint& point) {
  std::string text = "np=" + std::to_string(point.world_size);
  for (const auto& [name, value] : point.env) text += " " + name + "=" + value;
  return text + " repeat " + std::to_string(point.repeat);
}

// The tables and plots of a finished sweep. Each part is independent: one that has nothing to
// show (a single world size, say) becomes a note instead of stopping the others.
std::vector<std::string> write_summaries(const SweepOptions& options, const std::vector<LoadedReport>& reports) {
  std::vector<std::string> notes;
  const std::string dir = options.out_dir;
  auto attempt = [&](const std::string& what, auto&& body) {
    try {
      body();
    } catch (const std::exception& e) {
      notes.push_back(what + ": " + e.what());
    }
  };
  if (reports.empty()) {
    notes.push_back("no readable report: no tables or plots");
    return notes;
  }
  std::set<int> world_sizes;
  for (const auto& loaded : reports) world_sizes.insert(loaded.report.context.world_size);
  if (world_sizes.size() > 1) {
    attempt("scaling table", [&] {
      write_text_file(dir + "/scaling.md", render(scaling_document(compute_scaling(reports), std::nullopt), Format::kMarkdown));
      notes.push_back("wrote " + dir + "/scaling.md");
    });
  }
  for (const auto& setting : options.settings) {
    if (setting.values.size() < 2) continue;
    attempt("speedup table by " + setting.name, [&] {
      const std::string path = dir + "/speedup-" + file_safe(setting.name) + ".md";
      const SpeedupResult speedup = compute_speedup(reports, "tag." + setting.name, std::nullopt);
      write_text_file(path, render(speedup_document(speedup), Format::kMarkdown));
      notes.push_back("wrote " + path);
    });
  }
  for (const auto& [metric, name] : {std::pair{PlotMetric::kBusBandwidth, "busbw"}, std::pair{PlotMetric::kTime, "time"}}) {
    attempt(std::string("plot of ") + name, [&, metric = metric, name = name] {
      notes.push_back(write_plot(reports, metric, dir + "/" + name + ".svg").message);
    });
  }
  return notes;
}

}  // namespace

std::vector<SweepPoint> expand_grid(const SweepOptions& options) {
  // Settings combine as a cartesian product, first setting outermost.
  std::vector<std::vector<std::pair<std::string, std::string>>> combinations = {{}};
  for (const auto& setting : options.settings) {
    std::vector<std::vector<std::pair<std::string, std::string>>> next;
    for (const auto& combination : combinations) {
      for (const auto& value : setting.values) {
        auto extended = combination;
        extended.emplace_back(setting.name, value);
        next.push_back(std::move(extended));
      }
    }
    combinations = std::move(next);
  }
  std::vector<SweepPoint> points;
  std::set<std::string> names;
  for (int world_size : options.world_sizes) {
    for (const auto& combination : combinations) {
      for (int repeat = 1; repeat <= options.repeat; ++repeat) {
        SweepPoint point{world_size, combination, repeat, "np" + std::to_string(world_size)};
        for (const auto& [name, value] : combination) point.name += "." + file_safe(name) + "-" + file_safe(value);
        point.name += ".r" + std::to_string(repeat);
        if (!names.insert(point.name).second) throw InputError("sweep: two points would share the file name " + point.name);
        points.push_back(std::move(point));
      }
    }
  }
  return points;
}

std::vector<std::string> point_command(const SweepOptions& options, const SweepPoint& point, const std::string& report_path) {
  std::vector<std::string> argv;
  if (is_default_launcher(options)) {
    argv = {"mpirun", "--oversubscribe"};
    if (options.as_root) argv.push_back("--allow-run-as-root");
    // Open MPI passes these on to remote nodes only when asked; harmless on one machine.
    for (const auto& [name, value] : point.env) argv.insert(argv.end(), {"-x", name});
  } else if (!is_no_launcher(options)) {
    argv = options.launcher;
  }
  if (!is_no_launcher(options)) {
    const std::string np_flag = !options.np_flag.empty() ? options.np_flag
                                : (!argv.empty() && basename_of(argv[0]) == "srun") ? "-n" : "-np";
    argv.insert(argv.end(), {np_flag, std::to_string(point.world_size)});
  }
  const auto benchmark = benchmark_argv(options, point, report_path);
  argv.insert(argv.end(), benchmark.begin(), benchmark.end());
  return argv;
}

void validate(const SweepOptions& options) {
  if (options.bench.empty()) throw InputError("sweep: no benchmark after --");
  if (options.out_dir.empty()) throw InputError("sweep: --out DIR is required");
  for (const auto& arg : options.bench) {
    if (arg.rfind("-J", 0) == 0 || arg.rfind("--report", 0) == 0 || arg.rfind("--output_", 0) == 0 || arg == "--overwrite") {
      throw InputError("sweep: the benchmark's " + arg + " is set by the sweep (one report per point in --out)");
    }
  }
  if (options.world_sizes.empty()) throw InputError("sweep: --np needs at least one world size");
  for (int world_size : options.world_sizes) {
    if (world_size < 1) throw InputError("sweep: world sizes must be at least 1");
    if (is_no_launcher(options) && world_size != 1) throw InputError("sweep: --launcher none runs one rank; use --np 1");
  }
  if (options.repeat < 1) throw InputError("sweep: --repeat must be at least 1");
  std::set<std::string> names;
  for (const auto& setting : options.settings) {
    if (setting.name.empty() || setting.values.empty()) throw InputError("sweep: --env expects NAME=v1,v2");
    if (!names.insert(setting.name).second) throw InputError("sweep: --env " + setting.name + " given twice");
  }
}

SweepOutcome run_sweep(const SweepOptions& options, std::FILE* progress) {
  validate(options);
  std::error_code error;
  fs::create_directories(options.out_dir, error);
  if (!fs::is_directory(options.out_dir)) throw InputError(options.out_dir + ": cannot create folder");

  const auto points = expand_grid(options);
  const auto report_path_of = [&](const SweepPoint& point) { return options.out_dir + "/" + point.name + ".json"; };
  // Every point's earlier report is looked at before anything runs, so a folder that holds
  // another experiment is refused whole instead of half-overwritten.
  std::vector<bool> done_before;
  for (const auto& point : points) {
    done_before.push_back(finished(report_path_of(point), benchmark_argv(options, point, report_path_of(point))));
  }
  SweepOutcome outcome;
  outcome.points = static_cast<int>(points.size());
  InterruptGuard interrupts;  // Ctrl-C or SIGTERM: pass it to the running point, record, stop
  std::optional<int> interrupted_by;
  nlohmann::json manifest = {{"bench", options.bench}, {"points", nlohmann::json::array()}};
  Table table;
  table.title = "Sweep points";
  table.columns = {{"point"}, {"np"}, {"settings"}, {"repeat"}, {"status"}, {"seconds", 1}, {"report"}};
  Table::Group group;
  std::vector<LoadedReport> reports;
  int index = 0;
  for (const auto& point : points) {
    ++index;
    if (!interrupted_by) interrupted_by = interrupts.take();
    if (interrupted_by) break;
    const std::string report_path = report_path_of(point);
    const std::string log_path = options.out_dir + "/" + point.name + ".log";
    const auto command = point_command(options, point, report_path);
    std::string status;
    double seconds = 0;
    std::string detail;
    if (done_before[static_cast<std::size_t>(index - 1)]) {
      status = "done before";
      ++outcome.resumed;
    } else {
      print_line(progress, formatted("[%d/%zu] ", index, points.size()) + describe(point) + " ...");
      ProcessSpec spec{command, point.env, log_path, options.timeout_s, &interrupts};
      const auto start = std::chrono::steady_clock::now();
      const ProcessOutcome result = run_process(spec);
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      ++outcome.ran;
      if (result.interrupted_by) {
        interrupted_by = result.interrupted_by;
        status = "interrupted";
        ++outcome.failed;
      } else if (result.ok() && finished(report_path, benchmark_argv(options, point, report_path))) {
        status = "ok";
      } else {
        status = "failed";
        detail = result.ok() ? "exit 0 but no complete report" : result.describe();
        ++outcome.failed;
        print_line(progress, formatted("[%d/%zu] ", index, points.size()) + describe(point) + " failed: " + detail + " (log " + log_path + ")");
      }
    }
    std::string settings;
    nlohmann::json env = nlohmann::json::object();
    for (const auto& [name, value] : point.env) {
      settings += (settings.empty() ? "" : " ") + name + "=" + value;
      env[name] = value;
    }
    group.rows.push_back({point.name, point.world_size, settings, point.repeat, detail.empty() ? status : status + " (" + detail + ")",
                          seconds, report_path});
    manifest["points"].push_back({{"name", point.name}, {"world_size", point.world_size}, {"env", env}, {"repeat", point.repeat},
                                  {"status", status}, {"detail", detail}, {"seconds", seconds}, {"command", command},
                                  {"report", report_path}, {"log", log_path}});
    // Failed points may have left a partial report: it is used (and flagged) like any other.
    try {
      reports.push_back({report_path, report::read_report_file(report_path)});
    } catch (const report::ReportFormatError&) {
    }
  }
  table.groups.push_back(std::move(group));
  outcome.document.tables.push_back(std::move(table));
  if (interrupted_by) {
    const std::string line = std::string("interrupted by ") + (*interrupted_by == SIGINT ? "SIGINT" : "SIGTERM") + " after " +
                             std::to_string(outcome.ran) + " of " + std::to_string(outcome.points) +
                             " points; run the same sweep again to resume";
    print_line(progress, "sweep: " + line);
    outcome.document.notes.push_back(line);
    manifest["interrupted"] = line;
    if (outcome.failed == 0) ++outcome.failed;  // stopped between points: still not a whole sweep
  }
  write_text_file(options.out_dir + "/sweep.manifest", manifest.dump(2) + "\n");
  for (const auto& note : partial_notes(reports)) outcome.document.notes.push_back(note);
  for (const auto& note : write_summaries(options, reports)) outcome.document.notes.push_back(note);
  outcome.document.notes.push_back(std::to_string(outcome.points) + " points: " + std::to_string(outcome.ran) + " ran, " +
                                   std::to_string(outcome.resumed) + " done before, " + std::to_string(outcome.failed) + " failed");
  write_text_file(options.out_dir + "/sweep.md", render(outcome.document, Format::kMarkdown));
  outcome.document.extra["failed"] = outcome.failed;
  return outcome;
}

}  // namespace collbench::summarize
