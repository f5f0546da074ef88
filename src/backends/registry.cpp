#include "backends/registry.h"

#include "backends/mpi/mpi_backend.h"
#include "backends/mpi/mpi_world.h"
#include "core/error.h"
#include "core/options.h"
#ifdef COLLBENCH_HAVE_NCCL
#include "backends/cuda/cuda_device.h"
#include "backends/nccl/nccl_backend.h"
#endif

namespace collbench {

std::vector<std::string> available_backends() {
#ifdef COLLBENCH_HAVE_NCCL
  return {"mpi", "nccl"};
#else
  return {"mpi"};
#endif
}

std::string default_backend_name() {
#ifdef COLLBENCH_HAVE_NCCL
  if (cuda::visible_device_count(nullptr) > 0) return "nccl";
#endif
  return "mpi";
}

std::string backend_unusable_reason(const std::string& name) {
#ifdef COLLBENCH_HAVE_NCCL
  if (name == "nccl") {
    std::string why;
    if (cuda::visible_device_count(&why) > 0) return "";
    return "--backend nccl needs a GPU, but no CUDA device is visible (" + why +
           "); backends that can run here: mpi";
  }
#endif
  (void)name;
  return "";
}

std::unique_ptr<Backend> make_backend(const std::string& name, mpi::MpiWorld& world, const Options& options) {
  if (name == "mpi") return std::make_unique<mpi::MpiBackend>(world.communicator());
#ifdef COLLBENCH_HAVE_NCCL
  if (name == "nccl") return nccl::make_nccl_backend(world, options);
#endif
  (void)options;
  std::string available;
  for (const auto& backend : available_backends()) available += (available.empty() ? "" : ", ") + backend;
  throw UsageError("backend '" + name + "' is not available in this build (available: " + available + ")");
}

}  // namespace collbench
