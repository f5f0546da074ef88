#include "backends/registry.h"

#include "backends/mpi/mpi_backend.h"
#include "backends/mpi/mpi_world.h"
#include "core/error.h"

namespace collbench {

std::vector<std::string> available_backends() { return {"mpi"}; }

std::string default_backend_name() { return "mpi"; }

std::unique_ptr<Backend> make_backend(const std::string& name, mpi::MpiWorld& world) {
  if (name == "mpi") return std::make_unique<mpi::MpiBackend>(world.communicator());
  std::string available;
  for (const auto& backend : available_backends()) available += (available.empty() ? "" : ", ") + backend;
  throw UsageError("backend '" + name + "' is not available in this build (available: " + available + ")");
}

}  // namespace collbench
