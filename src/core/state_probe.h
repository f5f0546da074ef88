// The machine state a run may be made in: on a shared VM the host now and then runs the two CPUs
// that the ranks use far apart, and for seconds to minutes every collective takes about twice
// its time while one core alone computes and copies as fast as ever. A cache line passed back and
// forth between those two CPUs shows it (75-190 ns a round trip, and 350-530 in that state, on
// the 2-core runner measured in results/summarize/README.md), and it shows it without running the
// code under test, so a rule on it cannot hide a change of that code.
//
// One probe and one rule: every timed program records this probe around its rows (the harness's
// driver), and ab, history and compare judge states by the rule below. ab also probes on its own
// when a report has no probe (a base build from before it was recorded).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace collbench {

// How much a probe times: the median of `bursts` bursts of `round_trips` round trips each.
struct ProbeSize {
  int bursts = 5;
  long round_trips = 2000;
};

// The probe made before a run's first row and after its last (about 1.6 ms in the usual state).
inline constexpr ProbeSize kRunProbe{5, 2000};
// The probe made between two -N cycles, a tenth of that (about 0.1 ms): it costs each cycle little,
// and its median still sees the slow state, 3-5x away (results/summarize/state-cycles-2026-12-02).
inline constexpr ProbeSize kCycleProbe{3, 500};

struct StateProbe {
  int cpu_a = -1, cpu_b = -1;  // the two CPUs whose shared cache line is timed
  // Nanoseconds per round trip of one cache line between them: the median of the bursts. None when
  // a CPU is missing, a thread cannot be placed, or the probe takes longer than `patience` (other
  // work on those CPUs, not a state of the machine).
  std::optional<double> measure(std::chrono::milliseconds patience = std::chrono::milliseconds(100), ProbeSize size = kRunProbe) const;
  std::string describe() const;  // "cache-line round trip between CPUs 0 and 1"
};

// The probe between the first two CPUs this process may run on (ab's: ranks 0 and 1 under
// mpirun's default binding); cpu_a and cpu_b stay -1 when it may use one CPU only.
StateProbe state_probe_for_this_process();

// The lowest CPU this process may run on (-1 when it cannot tell): a rank's CPU under binding.
int first_cpu_of_this_process();

// The probe between the CPUs of two ranks on one host: `own_cpu` and `partner_cpu` (-1: no partner
// on this host). Without a partner, or with one on the same CPU, the next CPU of this host after
// own_cpu stands in (the first two CPUs of the host, as on several hosts). A thread may be placed
// outside its process's binding, so rank 0 can time the line to rank 1's CPU.
StateProbe state_probe_between(int own_cpu, int partner_cpu);

// Two probes more than this far apart saw two states: the states measured on the 2-core runner are
// 3.4x apart on the probe, its own spread within one state at most about 2x (80 and 150-190 ns at
// different hours; results/summarize/README.md).
inline constexpr double kStateFactor = 2.0;

// Whether the probes around a run pair saw one machine state: the largest within `factor` of the
// smallest. Missing probes (nullopt) never make a pair look mixed.
bool one_machine_state(const std::vector<std::optional<double>>& probes_ns, double factor = kStateFactor);

}  // namespace collbench
