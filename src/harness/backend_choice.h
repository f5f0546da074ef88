// The backend a run uses, and its life, the same in every program that takes --backend:
// the program's check_for_world settles its name and agrees on it (settle_backend), the run's
// constructor makes it from the shared flags (make_run_backend) and names it, its device and its
// libraries' versions in the report's context (backend_context).
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "backends/backend.h"
#include "backends/registry.h"
#include "core/world.h"
#include "harness/program_spec.h"
#include "report/report.h"

namespace collbench {

// Names the launch's default backend when none was given and refuses, with a UsageError (exit 2),
// a backend that does not fit the launch (gloo needs every rank's address; nccl needs MPI or the
// store to share its id).
void settle_backend_name(std::string& backend, ControlPlane control_plane);

// Every rank calls it: "" when every rank can run `backend`, else the first rank's reason as
// "rank N: ...", the same line on every rank (check_for_world's contract: all leave together).
std::string backend_unusable_anywhere(World& world, const std::string& backend);

// check_for_world's part, on every rank: settle_backend_name, then backend_unusable_anywhere.
std::string settle_backend(World& world, std::string& backend);

// The run's backend (`options` has RunFlags and BackendFlags): what the shared flags tell it (-T,
// --gloo-iface) over `config`, which holds what a program adds of its own (the collectives' NCCL
// algorithm and protocol, gloo's algorithm file).
template <typename Options>
std::unique_ptr<Backend> make_run_backend(World& world, const Options& options, BackendConfig config = {}) {
  config.timeout_seconds = options.timeout_seconds;
  config.network_interface = options.gloo_iface;
  return make_backend(options.backend, world, config);
}

// The report's context for a run on `backend`: collect_context, with the backend's library versions.
report::Context backend_context(RunContext& run, const Backend& backend, const RunFlags& flags, nlohmann::json options);

}  // namespace collbench
