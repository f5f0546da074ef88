// Same options everywhere: ranks started with different flags (an MPMD launch, a wrapper script
// that varies per host) would run different sweeps and hang in the first mismatched collective.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/flag_groups.h"
#include "core/world.h"

namespace collbench {

// The one canonical text of a program's identity: the program name, every flag the command line
// gave with its values as given (RunFlags::given, so no flag can be left out by hand; "-b8" and
// "-b 8" give the same values), and what the program takes from elsewhere (`program_identity`:
// an environment variable such as NCCL_TESTS_MIN_BW). Values are kept as raw bytes, so two file
// names that are not UTF-8 still differ.
std::string options_identity_text(const std::string& program, const nlohmann::json& program_identity, const RunFlags& flags);

// Collective: every rank calls it right after the world exists, with its program's identity
// (harness/program_shell.h), so that two programs in one MPMD launch disagree too. Returns "" when
// every rank has rank 0's identity, else one sentence (the same on every rank) naming the ranks
// that differ and showing their command lines.
std::string options_disagreement(World& world, const std::string& identity, const std::vector<std::string>& argv);

}  // namespace collbench
