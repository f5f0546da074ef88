// Collectives through NCCL on device buffers, one rank per GPU (nccl-tests' process model).
// No CUDA or NCCL headers here: the registry makes the backend through this one function.
#pragma once

#include <memory>

#include "backends/backend.h"

namespace collbench {
class World;
struct Options;
}  // namespace collbench

namespace collbench::nccl {

// Selects this rank's GPU (local rank modulo the visible devices), refuses two ranks on one GPU,
// and creates the communicator. A collective call on every rank; throws Error.
std::unique_ptr<Backend> make_nccl_backend(World& world, const Options& options);

}  // namespace collbench::nccl
