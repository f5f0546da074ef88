// Same options everywhere: ranks started with different flags (an MPMD launch, a wrapper script
// that varies per host) would run different sweeps and hang in the first mismatched collective.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/options.h"
#include "core/run_flags.h"
#include "core/world.h"

namespace collbench {

// Everything that shapes a collective run beyond the run flags: the parsed options (so "-b8" and
// "-b 8" agree) and what the report's options leave out.
nlohmann::json collective_options_identity(const Options& options);

// The one canonical text of a program's identity: its own part, the program name and the run flags
// every program shares. Bytes that are not UTF-8 (a Latin-1 file name) cannot pass through JSON
// unchanged, so the free-text flags' raw bytes follow the JSON text.
std::string options_identity_text(const std::string& program, nlohmann::json program_identity, const RunFlags& flags);

// Collective: every rank calls it right after the world exists, with its program's identity
// (harness/program_shell.h), so that two programs in one MPMD launch disagree too. Returns "" when
// every rank has rank 0's identity, else one sentence (the same on every rank) naming the ranks
// that differ and showing their command lines.
std::string options_disagreement(World& world, const std::string& identity, const std::vector<std::string>& argv);

}  // namespace collbench
