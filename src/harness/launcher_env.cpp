#include "harness/launcher_env.h"

#include <cstdlib>
#include <initializer_list>

namespace collbench {

int launcher_rank() {
  for (const char* variable : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"}) {
    if (const char* value = std::getenv(variable)) return std::atoi(value);
  }
  return 0;
}

}  // namespace collbench
