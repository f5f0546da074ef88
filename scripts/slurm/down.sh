#!/usr/bin/env bash
# Stops the local Slurm that scripts/slurm/up.sh started (same CB_SLURM_STATE) and removes its
# state folder, and with --nodes its simulated hosts (namespaces, forwarders, /etc/netns files),
# which are named from the state folder, so they go even when the folder is already gone. Safe to
# run twice, or when nothing is up. A folder up.sh did not make is left alone (one line, exit 2).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib.sh
. "$here/lib.sh"
if [ "$(id -u)" -ne 0 ]; then
  slurm_log "error: needs root"
  exit 2
fi
PATH=$PATH:/usr/sbin
state=$(slurm_state_dir)
if [ ! -d "$state" ]; then
  slurm_cluster_down "$state"
  slurm_log "nothing up in $state"
  exit 0
fi
slurm_stop "$state" || exit 2
slurm_log "down: removed $state"
