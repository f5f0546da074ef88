// Same options everywhere: ranks started with different flags (an MPMD launch, a wrapper script
// that varies per host) would run different sweeps and hang in the first mismatched collective.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/options.h"
#include "core/world.h"

namespace collbench {

// A hash of everything that shapes the run: the program and the parsed options (so "-b8" and
// "-b 8" agree). FNV-1a over a canonical text form; stable across processes of one build.
std::uint64_t options_fingerprint(const std::string& program, const Options& options);

// Collective: every rank calls it right after the world exists. Returns "" when every rank has
// rank 0's fingerprint, else one sentence (the same on every rank) naming the ranks that differ
// and showing their command lines.
std::string options_disagreement(World& world, const std::string& program, const Options& options,
                                 const std::vector<std::string>& argv);

}  // namespace collbench
