// Which data-plane backends this build has, and making one by name.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"

namespace collbench {

namespace mpi {
class MpiWorld;
}

struct Options;

std::vector<std::string> available_backends();  // built into this executable
// nccl when this build has it and a CUDA device is visible, otherwise mpi.
std::string default_backend_name();
// Why a backend this build has cannot run on this machine ("no CUDA device is visible ..."), or
// "" when it can. May differ between hosts, so callers agree across ranks.
std::string backend_unusable_reason(const std::string& name);
// Throws UsageError for a name this build does not have (the same on every rank).
std::unique_ptr<Backend> make_backend(const std::string& name, mpi::MpiWorld& world, const Options& options);

}  // namespace collbench
