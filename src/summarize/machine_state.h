// The machine state of each run, as its report's probe recorded it (core/state_probe.h), for the
// commands that judge runs made at different times: history and unpaired compare. A run made in
// another state than the others is set aside and listed, never counted as a change; ab pairs its
// runs and judges each pair by the same probe and factor.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "summarize/load.h"

namespace collbench::summarize {

struct SetAsideRun {
  std::string path;
  std::string when;               // context.start_time
  std::vector<double> probes_ns;  // what its probe saw
};

struct StateGuard {
  bool on = true;                  // --state-guard on|off
  std::vector<SetAsideRun> set_aside;  // runs in another state, in the order given
  std::optional<double> usual_ns;  // the median of every probe; none when no report has one
  std::size_t probed = 0;          // runs whose report holds a probe (older reports have none)
  bool sets_aside(const std::string& path) const;
};

// Judges `runs` together: which were made in another state than their usual one (the probe more
// than kStateFactor above or below the median of every probe). Off: judges nothing.
StateGuard judge_machine_states(const std::vector<const LoadedReport*>& runs, bool on);

// "a cache-line round trip between CPUs 0 and 1 of H": where a report's probe was made.
std::string describe_probe_place(const report::StateProbeRecord& probe);

// The note that lists the runs set aside: "3 run(s) set aside, made in another machine state (a
// cache-line round trip between CPUs 0 and 1 of H more than 2x from its usual 158 ns): WHEN (520,
// 515 ns) ...", with the probe's place from the first run that has one. Empty when none was.
std::string set_aside_note(const StateGuard& guard, const std::vector<const LoadedReport*>& runs);

// What a document's JSON says about the guard: on, factor, usual_ns, runs probed and set aside.
nlohmann::json state_guard_json(const StateGuard& guard);

}  // namespace collbench::summarize
