#include "summarize/runs/ab.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>

#include "report/report_json.h"
#include "summarize/common/input_error.h"
#include "summarize/verdicts/machine_state.h"
#include "summarize/common/process.h"
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

namespace {

// One ab comparison as it runs, by phase: its folders, the complete run pairs it resumes from,
// each new pair (ABBA, with the machine state guard's re-runs), the verdict after each pair, and
// the document.
class AbRun {
 public:
  AbRun(const AbOptions& options, std::FILE* progress)
      : options_(options),
        progress_(progress),
        dir_a_(options.out_dir + "/A"),
        dir_b_(options.out_dir + "/B"),
        side_a_(side_as_sweep(options, options.command_a, dir_a_)),
        side_b_(side_as_sweep(options, options.command_b, dir_b_)) {}

  AbOutcome run() {
    prepare_folders();
    start_ = std::chrono::steady_clock::now();
    interrupts_.emplace();
    const int first_run = resume();
    // Judged after each pair from --runs on, and once before any new run when resuming past it.
    bool done = first_run - 1 >= options_.runs && decided(first_run - 1);
    // The machine state guard: a pair whose runs were in two machine states is set aside and run
    // again, at most --state-reruns times. The states are those the runs' reports recorded (the probe
    // every timed program makes before its first row and after its last); for reports without one (a
    // base build from before it), ab makes the same probe itself before, between and after the runs.
    // The probe runs none of the code under test.
    own_probe_.emplace(state_probe_for_this_process());
    probe_place_ = own_probe_->describe() + ", by ab around each run";
    for (int run = first_run; run <= options_.max_runs && !done; ++run) {
      run_pair(run);
      if (run >= options_.runs) done = decided(run);
    }
    finish_document();
    return std::move(outcome_);
  }

 private:
  // A folder of the same comparison resumes (a killed ab continues from its complete run pairs);
  // one of another comparison, or of unknown origin, is refused.
  void prepare_folders() {
    if (options_.runs < 1 || options_.max_runs < options_.runs) throw InputError("ab: --runs >= 1 and --max-runs >= --runs");
    if (options_.out_dir.empty()) throw InputError("ab: --out DIR is required");
    validate(side_a_);
    validate(side_b_);
    resuming_ = holds_reports(dir_a_) || holds_reports(dir_b_);
    if (resuming_ && read_manifest(manifest_path(options_)) != comparison_identity(options_)) {
      throw InputError("ab: " + options_.out_dir + " already holds reports of another comparison; use a new --out folder");
    }
    std::error_code error;
    fs::create_directories(dir_a_, error);
    fs::create_directories(dir_b_, error);
    if (!fs::is_directory(dir_a_) || !fs::is_directory(dir_b_)) throw InputError(options_.out_dir + ": cannot create folder");
    if (!resuming_) {
      std::ofstream manifest(manifest_path(options_));
      manifest << comparison_identity(options_).dump(2) << '\n';
      if (!manifest) throw InputError(manifest_path(options_) + ": cannot write");
    }
  }

  std::string report_of(const SweepOptions& side, int run) const { return side.out_dir + "/run-" + std::to_string(run) + ".json"; }

  // Complete pairs only: a run whose partner is missing or unreadable is run again, with its
  // partner. The first run to make.
  int resume() {
    int first_run = 1;
    for (; resuming_ && first_run <= options_.max_runs; ++first_run) {
      try {
        LoadedReport a{report_of(side_a_, first_run), report::read_report_file(report_of(side_a_, first_run))};
        LoadedReport b{report_of(side_b_, first_run), report::read_report_file(report_of(side_b_, first_run))};
        reports_a_.push_back(std::move(a));
        reports_b_.push_back(std::move(b));
      } catch (const std::exception&) {
        break;
      }
    }
    if (resuming_) {
      // The half of a pair that finished before the kill is run again: the programs never replace a report.
      std::error_code error;
      for (int run = first_run; run <= options_.max_runs; ++run) {
        fs::remove(report_of(side_a_, run), error);
        fs::remove(report_of(side_b_, run), error);
      }
      print_line(progress_, "[ab] resuming " + options_.out_dir + ": " + std::to_string(first_run - 1) + " complete run pair(s) kept");
    }
    return first_run;
  }

  bool decided(int runs_a_side) {
    require_single_kind(reports_a_);
    require_single_kind(reports_b_);
    outcome_.result = compare_reports(reports_a_, reports_b_, options_.compare);
    outcome_.runs_a_side = runs_a_side;
    const std::size_t undecided = outcome_.result.count(Verdict::kUnknown);
    std::fprintf(progress_, "[ab] after %d runs a side: %zu of %zu rows undecided\n", runs_a_side, undecided, outcome_.result.lines.size());
    return undecided == 0;
  }

  bool guarded() const { return options_.state_reruns > 0; }

  std::optional<double> probe_now() {
    if (!guarded() || reports_probe_) return std::nullopt;
    return options_.state_probe ? options_.state_probe() : own_probe_->measure();
  }

  // The probes a pair's two reports recorded, in the order they were made; none when either lacks them.
  static std::vector<std::optional<double>> recorded_probes(const LoadedReport& first, const LoadedReport& second) {
    std::vector<std::optional<double>> probes;
    for (const LoadedReport* run : {&first, &second}) {
      const auto& recorded = run->report.context.state_probe;
      if (!recorded || recorded->values().empty()) return std::vector<std::optional<double>>{};
      probes.insert(probes.end(), {recorded->before_ns, recorded->after_ns});
    }
    return probes;
  }

  void run_side(const SweepOptions& side, int run) {
    const char* name = &side == &side_a_ ? "A" : "B";
    const SweepPoint point{options_.world_size, {}, run, "run-" + std::to_string(run)};
    const std::string report_path = side.out_dir + "/" + point.name + ".json";
    const std::string log_path = side.out_dir + "/" + point.name + ".log";
    std::fprintf(progress_, "[ab] run %d %s ...\n", run, name);
    std::fflush(progress_);
    const ProcessOutcome result = run_process({point_command(side, point, report_path), {}, log_path, options_.timeout_s, &*interrupts_});
    if (!result.ok()) {
      throw RunFailure(std::string("ab: run ") + std::to_string(run) + " of " + name + " " + result.describe() + " (log " + log_path +
                           "); the same command again resumes from the complete run pairs",
                       result.started && result.signal == 0 && !result.timed_out ? result.exit_code : -1, result.interrupted_by != 0,
                       &side == &side_a_, log_path);
    }
    try {
      (&side == &side_a_ ? reports_a_ : reports_b_).push_back({report_path, report::read_report_file(report_path)});
    } catch (const report::ReportFormatError& e) {
      throw std::runtime_error(std::string("ab: run ") + std::to_string(run) + " of " + name + " left no readable report: " + e.what());
    }
  }

  // ABBA: odd pairs run A first, even pairs B first, so that whatever ties a run's time to its
  // place in the pair (the machine warming up, a periodic job) falls on both sides alike and
  // the pairs' ratios stay symmetric about no change, as the signed-rank test assumes.
  void run_pair(int run) {
    const bool a_first = run % 2 == 1;
    for (int attempt = 0;; ++attempt) {
      std::vector<std::optional<double>> probes{probe_now()};
      run_side(a_first ? side_a_ : side_b_, run);
      probes.push_back(probe_now());
      run_side(a_first ? side_b_ : side_a_, run);
      probes.push_back(probe_now());
      const auto& first = a_first ? reports_a_.back() : reports_b_.back();
      const auto& second = a_first ? reports_b_.back() : reports_a_.back();
      if (auto recorded = recorded_probes(first, second); guarded() && !recorded.empty()) {
        probes = std::move(recorded);
        if (!reports_probe_) {
          probe_place_ = describe_probe_place(*first.report.context.state_probe) + ", recorded by each run before its first row and after its last";
        }
        reports_probe_ = true;
      }
      const bool one_state = one_machine_state(probes, kStateFactor);
      if (one_state || attempt == options_.state_reruns) {
        nlohmann::json pair = nlohmann::json::array();
        for (const auto& value : probes) pair.push_back(value ? nlohmann::json(std::round(*value * 10) / 10) : nlohmann::json());
        probes_ns_.push_back(pair);
        if (!one_state) ++kept_in_two_states_;
        return;
      }
      set_aside(reports_a_.back().path, options_.out_dir, "A", run);
      set_aside(reports_b_.back().path, options_.out_dir, "B", run);
      reports_a_.pop_back();
      reports_b_.pop_back();
      ++reruns_;
      // probe_place_ names the host a report recorded: text from a file, escaped like every line.
      print_line(progress_, "[ab] run pair " + std::to_string(run) + " again: its runs were in two machine states (" + probe_place_ + ": " +
                                describe_probes(probes) + " ns)");
    }
  }

  void finish_document() {
    outcome_.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    outcome_.document = compare_document(outcome_.result, options_.compare);
    const std::string seconds = formatted("%.1f s", outcome_.wall_s);
    const std::string line = "ab: A = BASE (" + options_.command_a.front() + "), B = NEW (" + options_.command_b.front() + "); " +
                             std::to_string(outcome_.runs_a_side) + " runs a side, interleaved (ABBA), " + seconds + "; reports in " + dir_a_ +
                             " and " + dir_b_;
    outcome_.document.notes.push_back(line);
    if (guarded() && (reruns_ > 0 || kept_in_two_states_ > 0)) {
      const std::string factor = formatted("%g", kStateFactor);
      std::string note = "ab: " + std::to_string(reruns_) + " run pair(s) set aside and run again, their runs in two machine states (" +
                         probe_place_ + " more than " + factor + "x apart around them); set-aside reports in " + options_.out_dir + "/set-aside";
      if (kept_in_two_states_ > 0) {
        note += "; " + std::to_string(kept_in_two_states_) + " pair(s) kept after " + std::to_string(options_.state_reruns) +
                " re-run(s) still in two states";
      }
      outcome_.document.notes.push_back(note);
    }
    outcome_.document.extra["state_guard"] = {{"probe", probe_place_},
                                              {"on", guarded()},
                                              {"factor", kStateFactor},
                                              {"rerun_limit", options_.state_reruns},
                                              {"pairs_run_again", reruns_},
                                              {"pairs_kept_in_two_states", kept_in_two_states_},
                                              {"probes_ns", probes_ns_}};
    outcome_.document.extra["runs_a_side"] = outcome_.runs_a_side;
    outcome_.document.extra["wall_s"] = outcome_.wall_s;
  }

  const AbOptions& options_;
  std::FILE* progress_;
  const std::string dir_a_, dir_b_;
  const SweepOptions side_a_, side_b_;
  bool resuming_ = false;
  std::chrono::steady_clock::time_point start_;
  std::optional<InterruptGuard> interrupts_;  // from the first run on
  AbOutcome outcome_;
  std::vector<LoadedReport> reports_a_, reports_b_;
  std::optional<StateProbe> own_probe_;
  bool reports_probe_ = false;  // both sides' reports carry the probe: ab need not probe
  std::string probe_place_;
  nlohmann::json probes_ns_ = nlohmann::json::array();
  int reruns_ = 0, kept_in_two_states_ = 0;
};

}  // namespace

AbOutcome run_ab(const AbOptions& options, std::FILE* progress) { return AbRun(options, progress).run(); }

}  // namespace collbench::summarize
