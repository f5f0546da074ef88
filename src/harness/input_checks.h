// Checks of the command line that need the world or the machine, made before anything is
// allocated or written, so that a bad request ends with one clear line instead of a crash.
#pragma once

#include <string>

#include "core/world.h"
#include "harness/program_spec.h"

namespace collbench {

// Collective. "" when every host has the memory its ranks need, else one sentence (the same on
// every rank) naming the first host that does not, how much is needed and what to change.
std::string memory_shortfall(World& world, const MemoryNeed& need);

// Why rank 0 cannot create files beside the report (read-only file systems, /proc, /sys, full
// disks answer only when asked), or "" when it can. Creates and removes one small probe file.
std::string report_write_problem(const std::string& path);

}  // namespace collbench
