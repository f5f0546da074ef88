#!/usr/bin/env bash
# The test command: set-up, configure, build, then every CTest test.
# Extra arguments go to ctest (for example: scripts/test.sh -L mpi).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
cd "${BUILD_DIR:-$root/build}"
# Two tests' worth of ranks a core: most tests wait on launches and deadlines (the whole suite used
# about a third of one core on a fresh 2-core VM, 2026-12-01, results/ci/README.md); the tests whose
# verdicts rest on timings run alone (RUN_SERIAL).
ctest --output-on-failure -j "$(( 2 * $(nproc) ))" "$@"
