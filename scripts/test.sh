#!/usr/bin/env bash
# The test command: set-up, configure, build, then every CTest test.
# Extra arguments go to ctest (for example: scripts/test.sh -L mpi).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
cd "${BUILD_DIR:-$root/build}"
ctest --output-on-failure -j "$(nproc)" "$@"
