#!/usr/bin/env bash
# mpirun with the flags a single machine needs: more ranks than cores (--oversubscribe) and, when
# running as root as CI does, --allow-run-as-root. Usage: scripts/mpirun-local.sh -np 4 CMD ...
set -euo pipefail
extra=(--oversubscribe)
if [ "$(id -u)" -eq 0 ]; then extra+=(--allow-run-as-root); fi
exec mpirun "${extra[@]}" "$@"
