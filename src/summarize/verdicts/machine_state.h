// The machine state of each run, as its report's probe recorded it (core/state_probe.h), for the
// commands that judge runs made at different times: history and unpaired compare. A run made in
// another state than the others is set aside and listed, never counted as a change; ab pairs its
// runs and judges each pair by the same probe and factor.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "summarize/common/load.h"

namespace collbench::summarize {

struct SetAsideRun {
  std::string path;
  std::string when;               // context.start_time
  std::vector<double> probes_ns;  // what its probe saw
};

// A run of which some cycles (-N) were made in another state, the others in the usual one.
struct PartlySetAsideRun {
  std::string path;
  std::string when;
  std::vector<int> cycles;  // the cycles left out, from 1
};

struct StateGuard {
  bool on = true;                  // --state-guard on|off
  std::vector<SetAsideRun> set_aside;  // runs in another state, in the order given
  std::vector<PartlySetAsideRun> cycles_set_aside;  // runs kept, less some cycles
  std::optional<double> usual_ns;  // the median of every probe; none when no report has one
  std::size_t probed = 0;          // runs whose report holds a probe (older reports have none)
  bool sets_aside(const std::string& path) const;
  // Whether cycle `cycle` of the run at `path` is left out: the whole run, or that cycle.
  bool sets_aside(const std::string& path, int cycle) const;
};

// Judges `runs` together against their usual state: the median of every probe of every run. A
// probe more than kStateFactor above or below it saw another state. Where a report probed between
// its cycles (schema 2.6), cycle k is judged by the probes on either side of it (before it and
// after it) and only the cycles in another state are left out; a run with every cycle in another
// state is set aside whole. An older report's run is set aside whole when any of its probes saw
// another state. Off: judges nothing.
StateGuard judge_machine_states(const std::vector<const LoadedReport*>& runs, bool on);

// The runs' reports less what the guard sets aside: whole runs dropped, and the rows of cycles
// made in another state taken out of the runs kept.
std::vector<LoadedReport> kept_by_guard(const std::vector<LoadedReport>& reports, const StateGuard& guard);

// "a cache-line round trip between CPUs 0 and 1 of H": where a report's probe was made.
std::string describe_probe_place(const report::StateProbeRecord& probe);

// The note that lists the runs set aside, and then the cycles left out of runs kept: "3 run(s) set aside, made in another machine state (a
// cache-line round trip between CPUs 0 and 1 of H more than 2x from its usual 158 ns): WHEN (520,
// 515 ns) ...", with the probe's place from the first run that has one. Empty when none was.
std::string set_aside_note(const StateGuard& guard, const std::vector<const LoadedReport*>& runs);

// What a document's JSON says about the guard: on, factor, usual_ns, runs probed and set aside.
nlohmann::json state_guard_json(const StateGuard& guard);

}  // namespace collbench::summarize
