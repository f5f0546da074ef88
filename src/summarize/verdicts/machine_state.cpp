#include "summarize/verdicts/machine_state.h"

#include <algorithm>
#include <cstdio>

#include "core/printable.h"
#include "core/state_probe.h"
#include "core/stats.h"

namespace collbench::summarize {

StateGuard judge_machine_states(const std::vector<const LoadedReport*>& runs, bool on) {
  StateGuard guard;
  guard.on = on;
  std::vector<double> every;
  for (const LoadedReport* run : runs) {
    const auto& recorded = run->report.context.state_probe;
    if (!recorded) continue;
    bool any = false;
    for (const auto& probe : recorded->in_order()) {
      if (probe && *probe > 0) every.push_back(*probe), any = true;
    }
    guard.probed += any ? 1 : 0;
  }
  if (every.empty()) return guard;
  guard.usual_ns = median_of(every);
  if (!on) return guard;
  const double usual = *guard.usual_ns;
  const auto another_state = [usual](const std::optional<double>& probe) {
    return probe && *probe > 0 && (*probe > kStateFactor * usual || *probe * kStateFactor < usual);
  };
  for (const LoadedReport* run : runs) {
    const auto& recorded = run->report.context.state_probe;
    if (!recorded) continue;
    const std::vector<std::optional<double>> probes = recorded->in_order();
    std::vector<int> other_cycles;
    bool whole = false;
    if (recorded->between_cycles_ns) {
      // Cycle k (from 1) ran between probes k - 1 and k; every cycle in another state: the whole run.
      const int cycles = static_cast<int>(probes.size()) - 1;
      for (int cycle = 1; cycle <= cycles; ++cycle) {
        if (another_state(probes[cycle - 1]) || another_state(probes[cycle])) other_cycles.push_back(cycle);
      }
      whole = !other_cycles.empty() && static_cast<int>(other_cycles.size()) == cycles;
    } else {
      whole = std::any_of(probes.begin(), probes.end(), another_state);
    }
    if (whole) {
      std::vector<double> made;
      for (const auto& probe : probes) {
        if (probe) made.push_back(*probe);
      }
      guard.set_aside.push_back({run->path, run->report.context.start_time, made});
    } else if (!other_cycles.empty()) {
      guard.cycles_set_aside.push_back({run->path, run->report.context.start_time, other_cycles});
    }
  }
  return guard;
}

bool StateGuard::sets_aside(const std::string& path) const {
  return std::any_of(set_aside.begin(), set_aside.end(), [&path](const SetAsideRun& run) { return run.path == path; });
}

bool StateGuard::sets_aside(const std::string& path, int cycle) const {
  if (sets_aside(path)) return true;
  return std::any_of(cycles_set_aside.begin(), cycles_set_aside.end(), [&](const PartlySetAsideRun& run) {
    return run.path == path && std::count(run.cycles.begin(), run.cycles.end(), cycle) > 0;
  });
}

std::vector<LoadedReport> kept_by_guard(const std::vector<LoadedReport>& reports, const StateGuard& guard) {
  std::vector<LoadedReport> kept;
  for (const auto& loaded : reports) {
    if (guard.sets_aside(loaded.path)) continue;
    kept.push_back(loaded);
    auto& rows = kept.back().report.rows;
    rows.erase(std::remove_if(rows.begin(), rows.end(), [&](const report::Row& row) { return guard.sets_aside(loaded.path, row.cycle); }), rows.end());
  }
  return kept;
}

std::string describe_probe_place(const report::StateProbeRecord& probe) {
  if (probe.cpu_a < 0) return "a cache-line round trip between two CPUs";
  return "a cache-line round trip between CPUs " + std::to_string(probe.cpu_a) + " and " + std::to_string(probe.cpu_b) +
         (probe.host.empty() ? "" : " of " + probe.host);
}

std::string set_aside_note(const StateGuard& guard, const std::vector<const LoadedReport*>& runs) {
  if (guard.set_aside.empty() && guard.cycles_set_aside.empty()) return "";
  std::string place = "a cache-line round trip between two CPUs";
  for (const LoadedReport* run : runs) {
    const auto& recorded = run->report.context.state_probe;
    if (!recorded || recorded->cpu_a < 0) continue;
    place = describe_probe_place(*recorded);
    break;
  }
  const std::string state = "made in another machine state (" + place + " " +
                            formatted("more than %gx from its usual %.0f ns", kStateFactor, guard.usual_ns.value_or(0)) + "; --state-guard off keeps them)";
  // A note names a few runs, never every one: its length must not grow with the input (a
  // thousand reports, each with its probes; issue 64). The JSON output lists them all.
  constexpr std::size_t kRunsNamed = 8;
  const auto more = [](std::size_t count) {
    return count > kRunsNamed ? " and " + std::to_string(count - kRunsNamed) + " more (--format json lists every one)" : std::string();
  };
  std::string note;
  if (!guard.set_aside.empty()) {
    note = std::to_string(guard.set_aside.size()) + " run(s) set aside, " + state + ":";
    for (std::size_t index = 0; index < std::min(guard.set_aside.size(), kRunsNamed); ++index) {
      const auto& run = guard.set_aside[index];
      note += " " + (run.when.empty() ? run.path : run.when) + " (";
      for (std::size_t i = 0; i < run.probes_ns.size(); ++i) note += formatted("%s%.0f", i ? ", " : "", run.probes_ns[i]);
      note += " ns)";
    }
    note += more(guard.set_aside.size());
  }
  if (!guard.cycles_set_aside.empty()) {
    std::size_t cycles = 0;
    for (const auto& run : guard.cycles_set_aside) cycles += run.cycles.size();
    note += std::string(note.empty() ? "" : "; ") + std::to_string(cycles) + " cycle(s) left out of " + std::to_string(guard.cycles_set_aside.size()) +
            " run(s) kept, " + (guard.set_aside.empty() ? state : "by the probes on either side of each") + ":";
    for (std::size_t index = 0; index < std::min(guard.cycles_set_aside.size(), kRunsNamed); ++index) {
      const auto& run = guard.cycles_set_aside[index];
      note += " " + (run.when.empty() ? run.path : run.when) + " (cycle" + (run.cycles.size() > 1 ? "s" : "");
      for (std::size_t i = 0; i < run.cycles.size(); ++i) note += (i ? ", " : " ") + std::to_string(run.cycles[i]);
      note += ")";
    }
    note += more(guard.cycles_set_aside.size());
  }
  return note;
}

nlohmann::json state_guard_json(const StateGuard& guard) {
  nlohmann::json set_aside = nlohmann::json::array();
  for (const auto& run : guard.set_aside) set_aside.push_back({{"report", run.path}, {"when", run.when}, {"probes_ns", run.probes_ns}});
  nlohmann::json cycles_set_aside = nlohmann::json::array();
  for (const auto& run : guard.cycles_set_aside) cycles_set_aside.push_back({{"report", run.path}, {"when", run.when}, {"cycles", run.cycles}});
  return {{"on", guard.on},
          {"factor", kStateFactor},
          {"usual_ns", guard.usual_ns ? nlohmann::json(*guard.usual_ns) : nlohmann::json(nullptr)},
          {"runs_probed", guard.probed},
          {"set_aside", set_aside},
          {"cycles_set_aside", cycles_set_aside}};
}

}  // namespace collbench::summarize
