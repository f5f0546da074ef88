// What the launcher tells a process about itself before MPI is initialised.
#pragma once

namespace collbench {

// The rank from mpirun/srun's environment, or 0 without a launcher. Used only to print
// --help and usage errors once, before MPI_Init.
int launcher_rank();

}  // namespace collbench
