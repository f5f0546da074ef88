#!/usr/bin/env bash
# The test command: set-up, configure, build, then every CTest test.
# Extra arguments go to ctest (for example: scripts/test.sh -L mpi).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
cd "${BUILD_DIR:-$root/build}"
# Open MPI's ob1 messaging layer, named: it is what Open MPI chooses on a machine without a fabric
# anyway, but finding that out costs every MPI_Init 0.2 s (Debian's Open MPI 4.1 opens its PSM and
# PSM2 transports to look for Omni-Path hardware: 0.22 s against 0.02 s, 2026-12-02), and the suite
# starts about 600 MPI jobs. A setting of the caller's wins.
export OMPI_MCA_pml="${OMPI_MCA_pml:-ob1}"
# OpenMP threads that sleep when idle: the tests run more ranks than cores, unbound, so each rank's
# OpenMP team (the check of a large piece, src/workloads/collectives/collective_buffers.cpp) has
# as many threads as the machine has cores, and libgomp's default spinning at the team's barriers
# and after each region took the CPU the other ranks needed: mpi.reduce.np4 used 10.8 CPU-s, 3.2
# with PASSIVE (2026-12-08, results/ci/README.md). Nothing a test asserts depends on how an idle
# OpenMP thread waits. A setting of the caller's wins.
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}"
# Four slots a core: most tests wait on launches and deadlines, not on the CPU (at two slots a core
# the suite kept about half of the 2 cores busy; -j 8 took 0.76-0.80 of -j 4's time in two
# interleaved pairs on a quiet 2-core VM, 2026-12-02, results/ci/README.md); the tests whose
# verdicts rest on timings run alone (RUN_SERIAL).
ctest --output-on-failure -j "$(( 4 * $(nproc) ))" "$@"
