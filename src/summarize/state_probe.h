// The machine state ab guards against: on a shared VM the host now and then runs the two CPUs
// that the ranks use far apart, and for seconds to minutes every collective takes about twice
// its time while one core alone computes and copies as fast as ever. A cache line passed back and
// forth between those two CPUs shows it (75-190 ns a round trip, and 350-530 in that state, on
// the 2-core runner measured in results/summarize/README.md), and it shows it without running the
// code under test, so a rule on it cannot hide a change of that code.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace collbench::summarize {

struct StateProbe {
  int cpu_a = -1, cpu_b = -1;  // the first two CPUs this process may run on: ranks 0 and 1 under mpirun's default binding
  // Nanoseconds per round trip of one cache line between them: the median of 5 bursts of 2000.
  // None when this process may use fewer than 2 CPUs, a thread cannot be placed, or the probe
  // takes over 100 ms (other work on those CPUs).
  std::optional<double> measure() const;
  std::string describe() const;  // "cache-line round trip between CPUs 0 and 1"
};

// The probe for this process; cpu_a and cpu_b stay -1 when it may use one CPU only.
StateProbe state_probe_for_this_process();

// Whether the probes around a run pair saw one machine state: the largest within `factor` of the
// smallest. Missing probes (nullopt) never make a pair look mixed.
bool one_machine_state(const std::vector<std::optional<double>>& probes_ns, double factor);

}  // namespace collbench::summarize
