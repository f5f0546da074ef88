// What a report says about the run: who ran where, with which versions, settings and environment.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engines/gpu_links.h"
#include "engines/host_info.h"
#include "harness/flag_groups.h"
#include "core/state_probe.h"
#include "core/world.h"
#include "report/report.h"

namespace collbench {

// Gathers every rank's identity (a collective call: every rank must make it).
// context.options is `options`: the program's flags as the run understood them, typed, as their
// declarations record them (harness/flag_groups.h: recorded_options).
report::Context collect_context(World& world, const std::string& backend_name, const std::string& device,
                                const std::vector<std::string>& argv, const RunFlags& flags, nlohmann::json options);

// The environment variables a report may carry: tuning knobs of the libraries we measure and the
// launcher's placement, never the whole environment (it holds tokens and secrets).
std::map<std::string, std::string> allow_listed_environment(char** environment);

// context.machine: rank 0's CPU model, cores, threads, memory and caches (hwloc, left out when
// `host` is empty: it could not be read), kernel, hosts, GPU models.
nlohmann::json machine_of(const report::Context& context, const std::optional<compute::HostInfo>& host);

// context.machine.gpu_inventory (schema 2.10): the GPUs and links NVML reports on this host, or
// why there are none (docs/report-schema.md).
nlohmann::json gpu_inventory_json(const compute::GpuLinkInventory& inventory);

// One line of a host's machine facts (CPU model, cores, threads, memory), gathered from every rank;
// empty when the host could not be probed.
std::string host_facts_line(const std::optional<compute::HostInfo>& host);

// context.machine.per_host: each host once, in context.hosts' order, with the ranks on it and its
// facts from `facts_by_rank` (host_facts_line of each rank; the first rank of a host speaks for it).
nlohmann::json per_host_machines(const report::Context& context, const std::vector<std::string>& facts_by_rank);

// The machine-state probe of this run (core/state_probe.h), its CPUs chosen and nothing measured
// yet: rank 0's CPU and rank 1's when rank 1 shares its host, else the host's next CPU. A
// collective call: every rank must make it.
report::StateProbeRecord state_probe_of(World& world);

// How long a probe may take, and how long the other ranks sleep meanwhile (past its patience).
struct ProbeSchedule {
  ProbeSize size;
  std::chrono::milliseconds patience, quiet;
};
// Before the first row and after the last: 5 bursts of 2000 take about 1.6 ms in the usual state
// and 5 ms in the slow one; more than 15 ms is other work on those CPUs. At most about 20 ms, so
// the two stay within a run's 50 ms.
inline constexpr ProbeSchedule kAroundRunProbe{kRunProbe, std::chrono::milliseconds(15), std::chrono::milliseconds(20)};
// Between two -N cycles: 3 bursts of 500, about 0.1 ms usual and 0.8 ms slow; about 4 ms a cycle.
inline constexpr ProbeSchedule kBetweenCyclesProbe{kCycleProbe, std::chrono::milliseconds(3), std::chrono::milliseconds(4)};

// One probe of the machine's state (collective): rank 0 times it, untimed and outside every row,
// while the other ranks sleep: a rank waiting in a barrier keeps its CPU busy, and the probe
// would time that instead of the machine. Rank 0's value; none on the other ranks.
std::optional<double> probe_machine_state(World& world, const report::StateProbeRecord& where, const ProbeSchedule& schedule);

std::string utc_timestamp_now();

// "0.4.0+g1a2b3c4[-dirty]": the version and the code it was built from (harness/source_state.h).
std::string collbench_version();
// "source: commit <40 hex>, tree clean|modified (diff sha256 <16 hex>)", as --version prints it.
std::string collbench_source_line();

}  // namespace collbench
