// What the launcher tells a process about itself before any library starts: whether mpirun/srun
// started it (MPI) or the torchrun-style variables did (RANK, WORLD_SIZE, LOCAL_RANK,
// LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT: the store and Gloo, no MPI_Init).
#pragma once

#include <functional>

#include "backends/gloo/gloo_world.h"
#include "core/run_flags.h"

namespace collbench {

// A variable's value, or nullptr when it is not set (std::getenv, or a table in tests).
using EnvironmentLookup = std::function<const char*(const char* name)>;

// The rank from mpirun/srun's environment, else RANK, or 0 without either. Used only to print
// --help and usage errors once, before the ranks have met.
int launcher_rank();

// Whether mpirun/srun's variables are present (OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_RANK).
bool started_by_mpi_launcher(const EnvironmentLookup& lookup);

struct LaunchPlan {
  bool use_mpi = true;
  StoreLaunch store;  // when !use_mpi
};

// --bootstrap mpi: MPI. env: the store. auto: MPI when an MPI launcher's variables are present
// (OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_RANK) or RANK and WORLD_SIZE are both absent; the store
// otherwise. --rendezvous file:DIR implies env. Throws UsageError with one line naming the
// variable for anything missing or malformed.
LaunchPlan plan_launch(const RunFlags& flags, const EnvironmentLookup& lookup);

}  // namespace collbench
