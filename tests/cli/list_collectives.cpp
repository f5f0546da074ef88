// Prints the collectives the registry holds, one name per line: what every_collective_runs.sh
// holds the built programs against, so no test keeps its own list or count of collectives.
#include <cstdio>

#include "workloads/collectives/collective.h"

int main() {
  for (const collbench::Collective* collective : collbench::all_collectives()) {
    if (collbench::find_collective(collective->name) != collective) {
      std::fprintf(stderr, "list_collectives: '%.*s' is not found by its own name\n", static_cast<int>(collective->name.size()),
                   collective->name.data());
      return 1;
    }
    std::printf("%.*s\n", static_cast<int>(collective->name.size()), collective->name.data());
  }
  return 0;
}
