// Same options everywhere: ranks started with different flags (an MPMD launch, a wrapper script
// that varies per host) would run different sweeps and hang in the first mismatched collective.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/options.h"
#include "core/world.h"

namespace collbench {

// Everything that shapes a collective run as canonical text: the program and the parsed options
// (so "-b8" and "-b 8" agree).
std::string collective_options_identity(const std::string& program, const Options& options);

// Collective: every rank calls it right after the world exists, with its program's identity
// (harness/program_shell.h), so that two programs in one MPMD launch disagree too. Returns "" when
// every rank has rank 0's identity, else one sentence (the same on every rank) naming the ranks
// that differ and showing their command lines.
std::string options_disagreement(World& world, const std::string& identity, const std::vector<std::string>& argv);

}  // namespace collbench
