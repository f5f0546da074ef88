#include "summarize/ab.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>

#include "report/report_json.h"
#include "summarize/input_error.h"
#include "summarize/machine_state.h"
#include "summarize/process.h"
#include "core/printable.h"
#include "core/state_probe.h"

namespace collbench::summarize {
namespace {

namespace fs = std::filesystem;

// One side as a one-point sweep, so the launcher, -J and tags are the sweep's.
SweepOptions side_as_sweep(const AbOptions& options, const std::vector<std::string>& command, const std::string& dir) {
  SweepOptions sweep;
  sweep.world_sizes = {options.world_size};
  sweep.launcher = options.launcher;
  sweep.np_flag = options.np_flag;
  sweep.out_dir = dir;
  sweep.bench = command;
  sweep.timeout_s = options.timeout_s;
  sweep.as_root = options.as_root;
  return sweep;
}

// What a folder's runs belong to: both commands and the world size. A folder resumes only for the
// same comparison; any other use of it would mix two comparisons' runs.
nlohmann::json comparison_identity(const AbOptions& options) {
  return {{"command_a", options.command_a}, {"command_b", options.command_b}, {"world_size", options.world_size}};
}

std::string manifest_path(const AbOptions& options) { return options.out_dir + "/ab.manifest.json"; }

std::optional<nlohmann::json> read_manifest(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return std::nullopt;
  // ab writes a manifest of two commands and a world size: a few KB.
  const std::string text = read_input(path, {"ab manifest", 1u << 20, 1u << 20});
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

// Moves a run's report and log to DIR/set-aside/SIDE/run-K.try-T.*, out of the folders that
// compare --paired and resuming read, and kept for whoever wants to see what was set aside. T is
// the first number free, so a resumed ab adds to what an earlier one set aside.
void set_aside(const std::string& report_path, const std::string& out_dir, const char* side, int run) {
  const std::string folder = out_dir + "/set-aside/" + side;
  std::error_code error;
  fs::create_directories(folder, error);
  const auto stem_of = [&](int attempt) { return folder + "/run-" + std::to_string(run) + ".try-" + std::to_string(attempt); };
  int attempt = 1;
  while (fs::exists(stem_of(attempt) + ".json", error)) ++attempt;
  const std::string stem = stem_of(attempt);
  fs::rename(report_path, stem + ".json", error);
  if (error) throw std::runtime_error("ab: cannot move " + report_path + " to " + folder + ": " + error.message());
  fs::path log = report_path;
  log.replace_extension(".log");
  fs::rename(log, stem + ".log", error);  // a missing log is no reason to stop
}

std::string describe_probes(const std::vector<std::optional<double>>& probes) {
  std::vector<std::string> numbers;
  for (const auto& value : probes) numbers.push_back(value ? formatted("%.0f", *value) : "n/a");
  return joined(numbers, ", ");
}

bool holds_reports(const std::string& dir) {
  std::error_code error;
  if (!fs::is_directory(dir, error)) return false;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    if (entry.path().extension() == ".json") return true;
  }
  return false;
}

}  // namespace

void split_ab_commands(const std::vector<std::string>& words, AbOptions& options) {
  const auto separator = std::find(words.begin(), words.end(), ":::");
  if (separator == words.end() || std::find(separator + 1, words.end(), ":::") != words.end()) {
    throw InputError("ab: expects -- CMD_A ::: CMD_B (one ':::' between the two commands)");
  }
  options.command_a.assign(words.begin(), separator);
  options.command_b.assign(separator + 1, words.end());
  if (options.command_a.empty() || options.command_b.empty()) throw InputError("ab: a command on each side of ':::'");
}

AbOutcome run_ab(const AbOptions& options, std::FILE* progress) {
  if (options.runs < 1 || options.max_runs < options.runs) throw InputError("ab: --runs >= 1 and --max-runs >= --runs");
  if (options.out_dir.empty()) throw InputError("ab: --out DIR is required");
  const std::string dir_a = options.out_dir + "/A", dir_b = options.out_dir + "/B";
  const SweepOptions side_a = side_as_sweep(options, options.command_a, dir_a);
  const SweepOptions side_b = side_as_sweep(options, options.command_b, dir_b);
  validate(side_a);
  validate(side_b);
  // A folder of the same comparison resumes (a killed ab continues from its complete run pairs);
  // one of another comparison, or of unknown origin, is refused.
  const bool resuming = holds_reports(dir_a) || holds_reports(dir_b);
  if (resuming && read_manifest(manifest_path(options)) != comparison_identity(options)) {
    throw InputError("ab: " + options.out_dir + " already holds reports of another comparison; use a new --out folder");
  }
  std::error_code error;
  fs::create_directories(dir_a, error);
  fs::create_directories(dir_b, error);
  if (!fs::is_directory(dir_a) || !fs::is_directory(dir_b)) throw InputError(options.out_dir + ": cannot create folder");
  if (!resuming) {
    std::ofstream manifest(manifest_path(options));
    manifest << comparison_identity(options).dump(2) << '\n';
    if (!manifest) throw InputError(manifest_path(options) + ": cannot write");
  }

  const auto start = std::chrono::steady_clock::now();
  InterruptGuard interrupts;
  AbOutcome outcome;
  std::vector<LoadedReport> reports_a, reports_b;
  const auto report_of = [](const SweepOptions& side, int run) { return side.out_dir + "/run-" + std::to_string(run) + ".json"; };
  int first_run = 1;
  // Complete pairs only: a run whose partner is missing or unreadable is run again, with its partner.
  for (; resuming && first_run <= options.max_runs; ++first_run) {
    try {
      LoadedReport a{report_of(side_a, first_run), report::read_report_file(report_of(side_a, first_run))};
      LoadedReport b{report_of(side_b, first_run), report::read_report_file(report_of(side_b, first_run))};
      reports_a.push_back(std::move(a));
      reports_b.push_back(std::move(b));
    } catch (const std::exception&) {
      break;
    }
  }
  if (resuming) {
    // The half of a pair that finished before the kill is run again: the programs never replace a report.
    for (int run = first_run; run <= options.max_runs; ++run) {
      fs::remove(report_of(side_a, run), error);
      fs::remove(report_of(side_b, run), error);
    }
    std::fprintf(progress, "[ab] resuming %s: %d complete run pair(s) kept\n", options.out_dir.c_str(), first_run - 1);
    std::fflush(progress);
  }
  // Judged after each pair from --runs on, and once before any new run when resuming past it.
  const auto decided = [&](int runs_a_side) {
    require_single_kind(reports_a);
    require_single_kind(reports_b);
    outcome.result = compare_reports(reports_a, reports_b, options.compare);
    outcome.runs_a_side = runs_a_side;
    const std::size_t undecided = outcome.result.count(Verdict::kUnknown);
    std::fprintf(progress, "[ab] after %d runs a side: %zu of %zu rows undecided\n", runs_a_side, undecided, outcome.result.lines.size());
    return undecided == 0;
  };
  bool done = first_run - 1 >= options.runs && decided(first_run - 1);
  // The machine state guard: a pair whose runs were in two machine states is set aside and run
  // again, at most --state-reruns times. The states are those the runs' reports recorded (the probe
  // every timed program makes before its first row and after its last); for reports without one (a
  // base build from before it), ab makes the same probe itself before, between and after the runs.
  // The probe runs none of the code under test.
  const StateProbe own_probe = state_probe_for_this_process();
  const bool guarded = options.state_reruns > 0;
  bool reports_probe = false;  // both sides' reports carry the probe: ab need not probe
  std::string probe_place = own_probe.describe() + ", by ab around each run";
  nlohmann::json probes_ns = nlohmann::json::array();
  int reruns = 0, kept_in_two_states = 0;
  const auto probe_now = [&]() -> std::optional<double> {
    if (!guarded || reports_probe) return std::nullopt;
    return options.state_probe ? options.state_probe() : own_probe.measure();
  };
  // The probes a pair's two reports recorded, in the order they were made; none when either lacks them.
  const auto recorded_probes = [](const LoadedReport& first, const LoadedReport& second) {
    std::vector<std::optional<double>> probes;
    for (const LoadedReport* run : {&first, &second}) {
      const auto& recorded = run->report.context.state_probe;
      if (!recorded || recorded->values().empty()) return std::vector<std::optional<double>>{};
      probes.insert(probes.end(), {recorded->before_ns, recorded->after_ns});
    }
    return probes;
  };
  const auto run_side = [&](const SweepOptions& side, int run) {
    const char* name = &side == &side_a ? "A" : "B";
    const SweepPoint point{options.world_size, {}, run, "run-" + std::to_string(run)};
    const std::string report_path = side.out_dir + "/" + point.name + ".json";
    const std::string log_path = side.out_dir + "/" + point.name + ".log";
    std::fprintf(progress, "[ab] run %d %s ...\n", run, name);
    std::fflush(progress);
    const ProcessOutcome result = run_process({point_command(side, point, report_path), {}, log_path, options.timeout_s, &interrupts});
    if (!result.ok()) {
      throw RunFailure(std::string("ab: run ") + std::to_string(run) + " of " + name + " " + result.describe() + " (log " + log_path +
                           "); the same command again resumes from the complete run pairs",
                       result.started && result.signal == 0 && !result.timed_out ? result.exit_code : -1, result.interrupted_by != 0,
                       &side == &side_a, log_path);
    }
    try {
      (&side == &side_a ? reports_a : reports_b).push_back({report_path, report::read_report_file(report_path)});
    } catch (const report::ReportFormatError& e) {
      throw std::runtime_error(std::string("ab: run ") + std::to_string(run) + " of " + name + " left no readable report: " + e.what());
    }
  };
  for (int run = first_run; run <= options.max_runs && !done; ++run) {
    // ABBA: odd pairs run A first, even pairs B first, so that whatever ties a run's time to its
    // place in the pair (the machine warming up, a periodic job) falls on both sides alike and
    // the pairs' ratios stay symmetric about no change, as the signed-rank test assumes.
    const bool a_first = run % 2 == 1;
    for (int attempt = 0;; ++attempt) {
      std::vector<std::optional<double>> probes{probe_now()};
      run_side(a_first ? side_a : side_b, run);
      probes.push_back(probe_now());
      run_side(a_first ? side_b : side_a, run);
      probes.push_back(probe_now());
      const auto& first = a_first ? reports_a.back() : reports_b.back();
      const auto& second = a_first ? reports_b.back() : reports_a.back();
      if (auto recorded = recorded_probes(first, second); guarded && !recorded.empty()) {
        probes = std::move(recorded);
        if (!reports_probe) {
          probe_place = describe_probe_place(*first.report.context.state_probe) + ", recorded by each run before its first row and after its last";
        }
        reports_probe = true;
      }
      const bool one_state = one_machine_state(probes, kStateFactor);
      if (one_state || attempt == options.state_reruns) {
        nlohmann::json pair = nlohmann::json::array();
        for (const auto& value : probes) pair.push_back(value ? nlohmann::json(std::round(*value * 10) / 10) : nlohmann::json());
        probes_ns.push_back(pair);
        if (!one_state) ++kept_in_two_states;
        break;
      }
      set_aside(reports_a.back().path, options.out_dir, "A", run);
      set_aside(reports_b.back().path, options.out_dir, "B", run);
      reports_a.pop_back();
      reports_b.pop_back();
      ++reruns;
      std::fprintf(progress, "[ab] run pair %d again: its runs were in two machine states (%s: %s ns)\n", run, probe_place.c_str(),
                   describe_probes(probes).c_str());
    }
    if (run >= options.runs) done = decided(run);
  }
  outcome.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  outcome.document = compare_document(outcome.result, options.compare);
  const std::string seconds = formatted("%.1f s", outcome.wall_s);
  const std::string line = "ab: A = BASE (" + options.command_a.front() + "), B = NEW (" + options.command_b.front() + "); " +
                           std::to_string(outcome.runs_a_side) + " runs a side, interleaved (ABBA), " + seconds + "; reports in " + dir_a +
                           " and " + dir_b;
  outcome.document.notes.push_back(line);
  if (guarded && (reruns > 0 || kept_in_two_states > 0)) {
    const std::string factor = formatted("%g", kStateFactor);
    std::string note = "ab: " + std::to_string(reruns) + " run pair(s) set aside and run again, their runs in two machine states (" +
                       probe_place + " more than " + factor + "x apart around them); set-aside reports in " + options.out_dir + "/set-aside";
    if (kept_in_two_states > 0) note += "; " + std::to_string(kept_in_two_states) + " pair(s) kept after " + std::to_string(options.state_reruns) + " re-run(s) still in two states";
    outcome.document.notes.push_back(note);
  }
  outcome.document.extra["state_guard"] = {{"probe", probe_place},
                                           {"on", guarded},
                                           {"factor", kStateFactor},
                                           {"rerun_limit", options.state_reruns},
                                           {"pairs_run_again", reruns},
                                           {"pairs_kept_in_two_states", kept_in_two_states},
                                           {"probes_ns", probes_ns}};
  outcome.document.extra["runs_a_side"] = outcome.runs_a_side;
  outcome.document.extra["wall_s"] = outcome.wall_s;
  return outcome;
}

}  // namespace collbench::summarize
