// The backend a run uses, settled the same way by every program that takes --backend.
#pragma once

#include <string>

#include "backends/backend.h"
#include "core/world.h"

namespace collbench {

// Names the launch's default backend when none was given and refuses, with a UsageError (exit 2),
// a backend that does not fit the launch (gloo needs every rank's address; nccl needs MPI or the
// store to share its id).
void settle_backend_name(std::string& backend, ControlPlane control_plane);

// Every rank calls it: "" when every rank can run `backend`, else the first rank's reason as
// "rank N: ...", the same line on every rank (check_for_world's contract: all leave together).
std::string backend_unusable_anywhere(World& world, const std::string& backend);

// What the shared flags tell a backend (-T, --gloo-iface), for options with both RunFlags and BackendFlags.
template <typename Options>
BackendConfig backend_config(const Options& options) {
  BackendConfig config;
  config.timeout_seconds = options.timeout_seconds;
  config.network_interface = options.gloo_iface;
  return config;
}

}  // namespace collbench
