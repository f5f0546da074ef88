// Which data-plane backends this build has, and making one by name.
//
// A table with one entry per backend, each defined next to its backend
// (collbench::backend_entry::<name>). Which entries exist is decided by CMake alone: a backend's
// sources are only built when its library was found, and CMake generates the table from the
// list COLLBENCH_BACKENDS, so no code here changes when a backend is added or left out.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backends/backend.h"
#include "core/world.h"

namespace collbench {

struct BackendEntry {
  std::string_view name;  // --backend NAME
  // A collective call on every rank; throws Error.
  std::unique_ptr<Backend> (*make)(World& world, const BackendConfig& config);
  // Why it cannot run on this machine ("no CUDA device is visible (...)"), "" when it can. Never
  // throws; may differ between hosts, so callers agree across ranks.
  std::string (*unusable_reason)();
};

// The generated table, in order of preference for the default: GPU backends first.
const std::vector<const BackendEntry*>& built_backends();

// The first backend in the table that can run here (nccl with a visible GPU, otherwise mpi;
// without MPI, nccl or else gloo).
std::string default_backend_name(ControlPlane control_plane);
// Why `name` cannot serve a run whose control plane is `control_plane` ("" when it can): the mpi
// backend needs MPI to have been launched. Identical on every rank.
std::string backend_launch_conflict(const std::string& name, ControlPlane control_plane);
// "" when `name` can run here, or when this build lacks it (make_backend says so); otherwise one
// sentence with the reason and the backends that can run here.
std::string backend_unusable_reason(const std::string& name);
// "mpi; nccl: built, unusable here: no CUDA device is visible (...)", for --version.
std::string describe_backends();
// Throws UsageError for a name this build does not have (the same on every rank).
std::unique_ptr<Backend> make_backend(const std::string& name, World& world, const BackendConfig& config);

}  // namespace collbench
