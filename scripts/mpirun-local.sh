#!/usr/bin/env bash
# mpirun with the flags a single machine needs: more ranks than cores (--oversubscribe) and, when
# running as root as CI does, --allow-run-as-root. Usage: scripts/mpirun-local.sh -np 4 CMD ...
# Where no mpirun is installed (a lent GPU machine), the ranks start without MPI through
# scripts/launch-local.sh (RANK/WORLD_SIZE, collbench's env bootstrap), which takes -np N only;
# COLLBENCH_LOCAL_LAUNCHER=env chooses that path where mpirun exists too (how it is tested).
set -euo pipefail
program=mpirun-local.sh
source "$(dirname "${BASH_SOURCE[0]}")/check-variables.sh"
require_one_of COLLBENCH_LOCAL_LAUNCHER "${COLLBENCH_LOCAL_LAUNCHER:-}" "" env
if [ "${COLLBENCH_LOCAL_LAUNCHER:-}" = env ] || ! command -v mpirun >/dev/null 2>&1; then
  exec "$(dirname "${BASH_SOURCE[0]}")/launch-local.sh" "$@"
fi
extra=(--oversubscribe)
if [ "$(id -u)" -eq 0 ]; then extra+=(--allow-run-as-root); fi
exec mpirun "${extra[@]}" "$@"
