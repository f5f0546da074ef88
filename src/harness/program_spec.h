// What a program is (ProgramSpec) and what the shell hands its run (RunContext), below both the
// shell that runs a program (harness/program_shell.h) and the driver that measures its run
// (harness/driver.h): the driver names them without including the shell above it, and a check
// below the shell (harness/input_checks.h) reads a MemoryNeed without it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/world.h"
#include "harness/flag_groups.h"
#include "harness/report_writer.h"

namespace collbench {

class Watchdog;

// What the shell hands a program to measure with.
struct RunContext {
  World& world;
  ReportWriter& report;  // rank 0 with -J writes; elsewhere saving does nothing
  Watchdog* watchdog;    // -T, or nullptr
  const std::vector<std::string>& argv;
};

// Host memory one rank will allocate, checked against every host before anything is allocated.
struct MemoryNeed {
  std::uint64_t bytes_per_rank = 0;  // 0: nothing worth checking
  std::string what = "the sweep needs";
  std::string remedy = "lower -e or use fewer ranks per host";
};

class Workload;  // harness/driver.h: one run of a program

// What a program is, apart from any run of it: known once its flags are parsed, before the world
// exists, and kept after the world ends. Only `flags`, `help`, `build_features` and `start` are
// required; an empty check or memory need has nothing to check.
struct ProgramSpec {
  // The parsed options, of the program's own type: `start` and the checks read them through their
  // own typed pointer to the same object.
  std::shared_ptr<const RunFlags> flags;
  std::function<std::string()> help;
  std::function<std::string()> build_features;
  // What shapes what a rank does beyond the flags it was given (the shell adds those, with the
  // program name): ranks whose identities differ would run different sweeps and hang in the first
  // mismatched collective. Only what comes from elsewhere, such as an environment variable.
  nlohmann::json options_identity = nlohmann::json::object();
  // Checks that need the world, identical on every rank. Throws UsageError (exit 2); returns a
  // line for exit 1 (the machine cannot run it), or "" to go on.
  std::function<std::string(World& world)> check_for_world;
  std::function<MemoryNeed(int world_size)> memory_need;
  // Whether a second thread of this program makes MPI calls (serialized with the main thread's):
  // MPI is then started at MPI_THREAD_SERIALIZED, which costs small calls a little; no otherwise.
  bool calls_mpi_from_a_second_thread = false;
  // Every rank, once the world exists: the run (harness/driver.h), holding what it uses (world,
  // backend or engine, buffers) until the driver drops it, however the run ends.
  std::function<std::unique_ptr<Workload>(RunContext& run)> start;
};

}  // namespace collbench
