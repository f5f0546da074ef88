#include "workloads/collectives/perf_main.h"

#include <cstdio>

#include "core/error.h"
#include "workloads/collectives/collective_workload.h"
#include "harness/program_shell.h"

namespace collbench {

int run_collective_perf(std::string_view collective_name, int argc, char** argv) {
  const Collective* collective = find_collective(collective_name);
  if (!collective) {
    std::fprintf(stderr, "collbench: internal error: no collective named '%.*s'\n",
                 static_cast<int>(collective_name.size()), collective_name.data());
    return static_cast<int>(ExitCode::kRuntimeError);
  }
  return run_program(std::string(collective->name) + "_perf", argc, argv, [collective](const std::vector<std::string>& args) {
    return collective_program(*collective, parse_options(args));
  });
}

}  // namespace collbench
