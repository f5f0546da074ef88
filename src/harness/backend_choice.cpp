#include "harness/backend_choice.h"

#include <vector>

#include "core/error.h"
#include "harness/context.h"

namespace collbench {

void settle_backend_name(std::string& backend, ControlPlane control_plane) {
  if (backend.empty()) backend = default_backend_name(control_plane);
  const std::string conflict = backend_launch_conflict(backend, control_plane);
  if (!conflict.empty()) throw UsageError(conflict);
}

std::string backend_unusable_anywhere(World& world, const std::string& backend) {
  const std::vector<std::string> reasons = world.gather_strings(backend_unusable_reason(backend));
  for (std::size_t rank = 0; rank < reasons.size(); ++rank) {
    if (!reasons[rank].empty()) return "rank " + std::to_string(rank) + ": " + reasons[rank];
  }
  return "";
}

std::string settle_backend(World& world, std::string& backend) {
  settle_backend_name(backend, world.control_plane());
  return backend_unusable_anywhere(world, backend);
}

report::Context backend_context(RunContext& run, const Backend& backend, const RunFlags& flags, nlohmann::json options) {
  report::Context context =
      collect_context(run.world, backend.name(), backend.device_description(), run.argv, flags, std::move(options));
  for (const auto& [library, version] : backend.versions()) context.versions[library] = version;
  return context;
}

}  // namespace collbench
