#include "backends/registry.h"

#include "core/error.h"

namespace collbench {
namespace {

const BackendEntry* find_backend(std::string_view name) {
  for (const BackendEntry* entry : built_backends()) {
    if (entry->name == name) return entry;
  }
  return nullptr;
}

std::string usable_backends() {
  std::string names;
  for (const BackendEntry* entry : built_backends()) {
    if (entry->unusable_reason().empty()) names += (names.empty() ? "" : ", ") + std::string(entry->name);
  }
  return names.empty() ? "none" : names;
}

}  // namespace

std::string default_backend_name(ControlPlane control_plane) {
  const std::string fallback = control_plane == ControlPlane::kMpi ? "mpi" : "gloo";
  for (const BackendEntry* entry : built_backends()) {
    if (!backend_launch_conflict(std::string(entry->name), control_plane).empty()) continue;
    if (entry->unusable_reason().empty()) return std::string(entry->name);
  }
  return fallback;  // make_backend then says why it cannot
}

std::string backend_launch_conflict(const std::string& name, ControlPlane control_plane) {
  if (name != "mpi" || control_plane == ControlPlane::kMpi) return "";
  return "--backend mpi needs a launch by mpirun or srun, and this run was started without one (RANK/WORLD_SIZE "
         "variables or --bootstrap env): use --backend gloo, or nccl where a GPU is visible";
}

std::string backend_unusable_reason(const std::string& name) {
  const BackendEntry* entry = find_backend(name);
  const std::string why = entry ? entry->unusable_reason() : "";
  if (why.empty()) return "";
  return "--backend " + name + " cannot run here: " + why + "; backends that can run here: " + usable_backends();
}

std::string describe_backends() {
  std::string usable, unusable;
  for (const BackendEntry* entry : built_backends()) {
    const std::string why = entry->unusable_reason();
    if (why.empty()) usable += (usable.empty() ? "" : " ") + std::string(entry->name);
    else unusable += "; " + std::string(entry->name) + ": built, unusable here: " + why;
  }
  return "backends: " + (usable.empty() ? std::string("none") : usable) + unusable;
}

std::unique_ptr<Backend> make_backend(const std::string& name, World& world, const BackendConfig& config) {
  if (const BackendEntry* entry = find_backend(name)) return entry->make(world, config);
  std::string built;
  for (const BackendEntry* entry : built_backends()) built += (built.empty() ? "" : ", ") + std::string(entry->name);
  throw UsageError("backend '" + name + "' is not available in this build (available: " + built + ")");
}

}  // namespace collbench
