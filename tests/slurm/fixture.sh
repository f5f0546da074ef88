#!/usr/bin/env bash
# The slurm label's fixture: brings the local Slurm up before the tests and down after them.
# usage: fixture.sh up|down SOURCE_DIR STATE_DIR [UP.SH ARGUMENTS]
# up exits 77 (skipped) with the reason when Slurm cannot start here (not root, no packages, a
# daemon that will not start); the tests then skip too, each on finding no Slurm.
set -uo pipefail
action=$1 source_dir=$2
export CB_SLURM_STATE=$3
if [ "$action" = up ]; then
  if ! out=$("$source_dir/scripts/slurm/up.sh" "${@:4}" 2>&1); then
    echo "SKIP: the local Slurm cannot start here: $(echo "$out" | grep -m1 'error' || echo "$out" | tail -1)"
    exit 77
  fi
  echo "$out"
  exit 0
fi
"$source_dir/scripts/slurm/down.sh"
# Nothing of it may outlive the tests.
for daemon in slurmctld slurmd munged; do
  for pid in $(pgrep -x "$daemon" 2>/dev/null); do
    if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$CB_SLURM_STATE"; then
      echo "FAIL: $daemon (pid $pid) of $CB_SLURM_STATE still running"
      exit 1
    fi
  done
done
# shellcheck source=../../scripts/slurm/lib.sh
. "$source_dir/scripts/slurm/lib.sh"
slurm_cluster_names "$CB_SLURM_STATE"
for ns in "$SLURM_NS_PREFIX"-host-a "$SLURM_NS_PREFIX"-switch; do
  [ -e "/run/netns/$ns" ] && { echo "FAIL: namespace $ns of $CB_SLURM_STATE left behind"; exit 1; }
done
if ip link show "$SLURM_UPLINK" >/dev/null 2>&1; then echo "FAIL: $SLURM_UPLINK left behind"; exit 1; fi
echo "ok: down, nothing left of $CB_SLURM_STATE"
