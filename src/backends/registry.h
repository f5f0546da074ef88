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

std::vector<std::string> available_backends();
std::string default_backend_name();
// Throws UsageError for a name this build does not have (the same on every rank).
std::unique_ptr<Backend> make_backend(const std::string& name, mpi::MpiWorld& world);

}  // namespace collbench
