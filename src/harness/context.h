// What a report says about the run: who ran where, with which versions, settings and environment.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/options.h"
#include "core/world.h"
#include "report/report.h"

namespace collbench {

// Gathers every rank's identity (a collective call: every rank must make it).
report::Context collect_context(World& world, const std::string& backend_name, const std::string& device,
                                const std::vector<std::string>& argv, const Options& options);

// The environment variables a report may carry: tuning knobs of the libraries we measure and the
// launcher's placement, never the whole environment (it holds tokens and secrets).
std::map<std::string, std::string> allow_listed_environment(char** environment);

// Every option as the run understood it, typed, for the report's context.options.
nlohmann::json options_as_json(const Options& options);

// context.machine: CPU model, cores, threads, memory (hwloc), kernel, hosts, GPU models.
nlohmann::json machine_of(const report::Context& context);

std::string utc_timestamp_now();

std::string collbench_version();

}  // namespace collbench
