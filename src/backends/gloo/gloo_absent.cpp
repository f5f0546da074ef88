// join_gloo_world in a build without Gloo (libgloo-dev was not found): runs without MPI need it.
#include "backends/gloo/gloo_world.h"
#include "core/error.h"

namespace collbench {

std::unique_ptr<World> join_gloo_world(const StoreLaunch&, const std::function<void()>&) {
  throw UsageError("this build has no Gloo (libgloo-dev was not found when it was configured), so it cannot run "
                   "without MPI from RANK/WORLD_SIZE variables: launch with mpirun or srun, or rebuild with Gloo");
}

}  // namespace collbench
