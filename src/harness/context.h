// What a report says about the run: who ran where, with which versions, settings and environment.
#pragma once

#include <map>
#include <string>
#include <vector>

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

// context.machine: CPU model, cores, threads, memory (hwloc), kernel, hosts, GPU models.
nlohmann::json machine_of(const report::Context& context);

std::string utc_timestamp_now();

// "0.4.0+g1a2b3c4[-dirty]": the version and the code it was built from (harness/source_state.h).
std::string collbench_version();
// "source: commit <40 hex>, tree clean|modified (diff sha256 <16 hex>)", as --version prints it.
std::string collbench_source_line();

}  // namespace collbench
