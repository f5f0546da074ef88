#include "summarize/machine_state.h"

#include <algorithm>
#include <cstdio>

#include "core/state_probe.h"
#include "core/stats.h"

namespace collbench::summarize {

StateGuard judge_machine_states(const std::vector<const LoadedReport*>& runs, bool on) {
  StateGuard guard;
  guard.on = on;
  std::vector<std::vector<double>> probes;
  std::vector<double> every;
  for (const LoadedReport* run : runs) {
    const auto& recorded = run->report.context.state_probe;
    probes.push_back(recorded ? recorded->values() : std::vector<double>{});
    guard.probed += probes.back().empty() ? 0 : 1;
    every.insert(every.end(), probes.back().begin(), probes.back().end());
  }
  if (!every.empty()) guard.usual_ns = median_of(every);
  if (!on) return guard;
  const std::vector<bool> other = runs_in_another_state(probes);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (other[i]) guard.set_aside.push_back({runs[i]->path, runs[i]->report.context.start_time, probes[i]});
  }
  return guard;
}

bool StateGuard::sets_aside(const std::string& path) const {
  return std::any_of(set_aside.begin(), set_aside.end(), [&path](const SetAsideRun& run) { return run.path == path; });
}

std::string describe_probe_place(const report::StateProbeRecord& probe) {
  if (probe.cpu_a < 0) return "a cache-line round trip between two CPUs";
  return "a cache-line round trip between CPUs " + std::to_string(probe.cpu_a) + " and " + std::to_string(probe.cpu_b) +
         (probe.host.empty() ? "" : " of " + probe.host);
}

std::string set_aside_note(const StateGuard& guard, const std::vector<const LoadedReport*>& runs) {
  if (guard.set_aside.empty()) return "";
  std::string place = "a cache-line round trip between two CPUs";
  for (const LoadedReport* run : runs) {
    const auto& recorded = run->report.context.state_probe;
    if (!recorded || recorded->cpu_a < 0) continue;
    place = describe_probe_place(*recorded);
    break;
  }
  char usual[96];
  std::snprintf(usual, sizeof usual, "more than %gx from its usual %.0f ns", kStateFactor, guard.usual_ns.value_or(0));
  std::string note = std::to_string(guard.set_aside.size()) + " run(s) set aside, made in another machine state (" + place + " " + usual +
                     "; --state-guard off keeps them):";
  for (const auto& run : guard.set_aside) {
    note += " " + (run.when.empty() ? run.path : run.when) + " (";
    for (std::size_t i = 0; i < run.probes_ns.size(); ++i) {
      char number[32];
      std::snprintf(number, sizeof number, "%s%.0f", i ? ", " : "", run.probes_ns[i]);
      note += number;
    }
    note += " ns)";
  }
  return note;
}

nlohmann::json state_guard_json(const StateGuard& guard) {
  nlohmann::json set_aside = nlohmann::json::array();
  for (const auto& run : guard.set_aside) set_aside.push_back({{"report", run.path}, {"when", run.when}, {"probes_ns", run.probes_ns}});
  return {{"on", guard.on},
          {"factor", kStateFactor},
          {"usual_ns", guard.usual_ns ? nlohmann::json(*guard.usual_ns) : nlohmann::json(nullptr)},
          {"runs_probed", guard.probed},
          {"set_aside", set_aside}};
}

}  // namespace collbench::summarize
