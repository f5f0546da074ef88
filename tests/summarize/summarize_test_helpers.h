// What the command files of the summarizer's unit tests share (test_compare.cpp, test_history.cpp, ...): the
// summarizer's pure functions are tested on fixture reports (tests/data/summarize, made by make_fixtures.py)
// and on synthetic samples whose answers are known by hand.
#pragma once

#include <gtest/gtest.h>
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>
#include <unistd.h>
#include <nlohmann/json.hpp>
#include "summarize/cli/cli.h"
#include "summarize/runs/ab.h"
#include "core/state_probe.h"
#include "summarize/verdicts/compare.h"
#include "summarize/verdicts/fingerprint.h"
#include "summarize/verdicts/history.h"
#include "summarize/common/run_stats.h"
#include "summarize/common/document.h"
#include "summarize/common/figure.h"
#include "summarize/common/input_error.h"
#include "summarize/common/load.h"
#include "summarize/tables/nccl_table.h"
#include "report/report_json.h"
#include "summarize/plots/plot.h"
#include "summarize/tables/scaling.h"
#include "summarize/tables/speedup.h"
#include "summarize/runs/sweep.h"
#include "run_cli.h"
#include "test_data.h"

namespace collbench::summarize {

inline std::string key_value(const SeriesKey& key, const std::string& name) {
  for (const auto& [field, value] : key) {
    if (field == name) return value;
  }
  return "<missing>";
}

inline CompareResult compare_folders(const std::string& base, const std::string& candidate, CompareOptions options = {}) {
  return compare_reports(load_reports({data(base)}), load_reports({data(candidate)}), options);
}

// Synthetic histories: twelve dated runs of four row series (the CI suite's 64 KiB and 256 KiB,
// in and out of place), each run's figure drawn as level x lognormal(3 %), and a share of a row's
// runs disturbed 1.5-2.7x (a job beside it for the whole run). `step` multiplies every row from run
// `step_at` on. A fixed seed: the same histories every time.
class SyntheticHistories {
 public:
  // `machine_share`: a share of runs in which the whole machine was slow, every row 2.5-3x.
  SyntheticHistories(std::uint64_t seed, double disturbed_share, double machine_share = 0)
      : state_(seed), disturbed_share_(disturbed_share), machine_share_(machine_share) {}

  std::vector<LoadedReport> make(double step, std::size_t step_at) {
    const auto fixture = load_reports({data("history/flat/run-00.json")}).front();
    std::vector<report::Row> rows;
    for (const auto& row : fixture.report.rows) {
      for (const char* placement : {"out", "in"}) {
        report::Row copy = row;
        for (auto& [field, value] : copy.keys) value = field == "placement" ? placement : value;
        rows.push_back(copy);
      }
    }
    std::vector<LoadedReport> runs;
    for (std::size_t run = 0; run < 12; ++run) {
      LoadedReport loaded = fixture;
      loaded.path = "synthetic/run-" + std::to_string(run) + ".json";
      loaded.report.context.start_time = "2026-10-01T" + std::string(run < 10 ? "0" : "") + std::to_string(run) + ":00:00Z";
      loaded.report.rows = rows;
      const double machine = uniform() < machine_share_ ? 2.5 + 0.5 * uniform() : 1.0;
      for (auto& row : loaded.report.rows) {
        double figure = static_cast<double>(row.size) / 1000 * std::exp(0.03 * normal()) * (run >= step_at ? step : 1.0) * machine;
        if (uniform() < disturbed_share_) figure *= 1.5 + 1.2 * uniform();
        row.samples_us.assign(20, figure);  // p10 of twenty equal samples: the figure itself
        row.time_statistics.clear();
      }
      runs.push_back(std::move(loaded));
    }
    return runs;
  }

 private:
  double uniform() {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return (static_cast<double>(state_ >> 11) + 0.5) / 9007199254740992.0;
  }
  double normal() { return std::sqrt(-2 * std::log(uniform())) * std::cos(2 * std::acos(-1.0) * uniform()); }
  std::uint64_t state_;
  double disturbed_share_, machine_share_;
};

inline bool has_note(const Document& document, const std::string& text) {
  return std::any_of(document.notes.begin(), document.notes.end(), [&](const std::string& note) { return note.find(text) != std::string::npos; });
}

// The machine's state as the reports' probe recorded it (core/state_probe.h). Runs `from`..`to` of
// a history are put in the doubled state of the 2-core runner, the probe at 517-527 ns, the other
// runs at the usual 158-159 ns (results/summarize/README.md). Every row is `slower` in those runs:
// 2 for a run made in that state throughout; less for one the state covered in part (it flips for
// seconds to minutes), which the figure alone cannot tell from a change of the code.
// A probe made between CPUs 0 and 1 of host "runner", with nothing measured yet.
inline report::StateProbeRecord runner_probe() {
  report::StateProbeRecord probe;
  probe.host = "runner";
  probe.cpu_a = 0;
  probe.cpu_b = 1;
  return probe;
}

inline void with_state_episode(std::vector<LoadedReport>& runs, std::size_t from, std::size_t to, double slower = 2) {
  for (std::size_t run = 0; run < runs.size(); ++run) {
    const bool slow = run >= from && run <= to;
    report::StateProbeRecord probe = runner_probe();
    probe.before_ns = slow ? 517 : 158;
    probe.after_ns = slow ? 527 : 159;
    runs[run].report.context.state_probe = probe;
    if (!slow) continue;
    for (auto& row : runs[run].report.rows) {
      for (auto& sample : row.samples_us) sample *= slower;
    }
  }
}

// Runs of `cycles` -N cycles each (rows repeated, cycle 1..N), every probe in the usual state
// (158-159 ns), one between each two cycles as schema 2.6 records them.
inline void with_cycles(std::vector<LoadedReport>& runs, int cycles) {
  for (auto& run : runs) {
    std::vector<report::Row> rows;
    for (int cycle = 1; cycle <= cycles; ++cycle) {
      for (report::Row row : run.report.rows) {
        row.cycle = cycle;
        rows.push_back(std::move(row));
      }
    }
    run.report.rows = std::move(rows);
    report::StateProbeRecord probe = runner_probe();
    probe.before_ns = 158;
    probe.between_cycles_ns = std::vector<std::optional<double>>(static_cast<std::size_t>(cycles - 1), 159.0);
    probe.after_ns = 159;
    run.report.context.state_probe = probe;
  }
}

// Cycles `first`..`last` of runs `from`..`to` made `slower`; `probed`: the probe after each of those
// cycles saw the doubled state (517 ns), the one before the first did not yet (the state turned
// just after it); else no probe saw it (the fast state). A cycle with either probe beside it in
// another state is left out, so the cycle after `last` is too.
inline void with_cycle_episode(std::vector<LoadedReport>& runs, std::size_t from, std::size_t to, int first, int last, double slower, bool probed = true) {
  for (std::size_t run = from; run <= to; ++run) {
    for (auto& row : runs[run].report.rows) {
      if (row.cycle < first || row.cycle > last) continue;
      for (auto& sample : row.samples_us) sample *= slower;
    }
    if (!probed) continue;
    auto& probe = *runs[run].report.context.state_probe;
    for (int at = first; at <= last; ++at) {  // probe k is after cycle k: after_ns is the Nth
      if (at == static_cast<int>(probe.between_cycles_ns->size()) + 1) probe.after_ns = 517;
      else (*probe.between_cycles_ns)[static_cast<std::size_t>(at - 1)] = 517;
    }
  }
}

}  // namespace collbench::summarize
