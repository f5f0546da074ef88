// What a report says about the run: who ran where, with which versions, settings and environment.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engines/host_info.h"
#include "harness/flag_groups.h"
#include "core/world.h"
#include "report/report.h"

namespace collbench {

// Gathers every rank's identity (a collective call: every rank must make it).
// context.options holds the shared flag groups' values (from `flags`) and `options`, the
// program's own options as the run understood them, typed.
report::Context collect_context(World& world, const std::string& backend_name, const std::string& device,
                                const std::vector<std::string>& argv, const RunFlags& flags, nlohmann::json options);

// The environment variables a report may carry: tuning knobs of the libraries we measure and the
// launcher's placement, never the whole environment (it holds tokens and secrets).
std::map<std::string, std::string> allow_listed_environment(char** environment);

// context.machine: rank 0's CPU model, cores, threads, memory and caches (hwloc, left out when
// `host` is empty: it could not be read), kernel, hosts, GPU models.
nlohmann::json machine_of(const report::Context& context, const std::optional<compute::HostInfo>& host);

// One line of a host's machine facts (CPU model, cores, threads, memory), gathered from every rank;
// empty when the host could not be probed.
std::string host_facts_line(const std::optional<compute::HostInfo>& host);

// context.machine.per_host: each host once, in context.hosts' order, with the ranks on it and its
// facts from `facts_by_rank` (host_facts_line of each rank; the first rank of a host speaks for it).
nlohmann::json per_host_machines(const report::Context& context, const std::vector<std::string>& facts_by_rank);

std::string utc_timestamp_now();

std::string collbench_version();

}  // namespace collbench
