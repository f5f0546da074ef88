# shellcheck shell=bash
# Shared by up.sh, down.sh and the slurm tests: where a local Slurm's state lives and how to stop it.
#
# One local Slurm per state folder. CB_SLURM_STATE names it (default: /tmp/collbench-slurm); the
# folder holds the munge key and socket, slurm.conf, the daemons' pid files, logs and spool, and
# env.sh, which points clients (srun, sbatch, squeue) at this Slurm. Two copies with different
# folders never share a port, socket or file.

slurm_log() { echo "slurm: $*" >&2; }

# shellcheck source=../owned.sh
. "$(dirname "${BASH_SOURCE[0]}")/../owned.sh"
program=slurm
# The mark up.sh leaves in its state folder: down.sh and up.sh's clean-up touch no other folder.
slurm_owner=scripts/slurm/up.sh

slurm_state_dir() { echo "${CB_SLURM_STATE:-/tmp/collbench-slurm}"; }

# Names of the simulated hosts of a multi-node Slurm (up.sh --nodes 2-4), all derived from the
# state folder $1, so down.sh finds them even when up.sh died before writing anything else:
# SLURM_NS_PREFIX (the star's namespaces <prefix>-host-a..d and <prefix>-switch), SLURM_UPLINK (the
# machine's veth into the star's switch, at SLURM_NET.0.254) and SLURM_NET (the star's first two
# octets; CB_SLURM_NET overrides). The machine routes to that subnet, so it must differ from any
# other star the machine joins: a clash is refused by up.sh, not shared.
slurm_cluster_names() {
  local hash
  hash=$(printf '%s' "$1" | md5sum | cut -c1-6)
  SLURM_NS_PREFIX="cbs$hash"
  SLURM_UPLINK="cbs$hash-up"
  # shellcheck disable=SC2034  # read by up.sh
  SLURM_NET=${CB_SLURM_NET:-10.$((214 + 0x${hash:0:2} % 40))}
}

# Stops the processes in the list $1 (pids, blank-separated): SIGTERM to all, up to 5 s for them to
# leave, then SIGKILL. Never fails.
slurm_stop_pids() {
  local pid tries alive
  for pid in $1; do kill -TERM "$pid" 2>/dev/null || true; done
  for ((tries = 0; tries < 50; tries++)); do
    alive=0
    for pid in $1; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" -eq 0 ] && return 0
    sleep 0.1
  done
  for pid in $1; do kill -KILL "$pid" 2>/dev/null || true; done
}

# Removes the simulated hosts of state folder $1: the forwarders, every process in the namespaces,
# the namespaces (the uplink goes with the switch's end of it). Never fails.
slurm_cluster_down() {
  local state=$1
  slurm_cluster_names "$state"
  # Only forwarders started for this state's namespaces: a pid file can name any process by now.
  [ -f "$state/forwarder.pids" ] && slurm_stop_pids "$(owned_pids "/run/netns/$SLURM_NS_PREFIX-" $(cat "$state/forwarder.pids"))"
  if [ -e "/run/netns/$SLURM_NS_PREFIX-switch" ] || [ -e "/run/netns/$SLURM_NS_PREFIX-host-a" ]; then
    (
      # shellcheck source=../cluster/lib.sh
      . "$(dirname "${BASH_SOURCE[0]}")/../cluster/lib.sh"
      export CB_CLUSTER_PREFIX=$SLURM_NS_PREFIX
      star_down 2>&1 | sed 's/^/slurm: /' >&2
    )
  fi
  ip link del "$SLURM_UPLINK" 2>/dev/null || true
}

# Stops the daemons whose pid files are in state folder $1 (munged last: slurmd and slurmctld
# authenticate through it while they shut down), then removes the folder. A folder up.sh did not
# mark is left alone: one line, status 2. Signals only a pid whose command line names the folder
# (each daemon was started with a path in it), so a stale or planted pid file kills nothing else.
slurm_stop() {
  local state=$1
  [ -e "$state" ] || { slurm_cluster_down "$state"; return 0; }
  owned_folder_is "$state" "$slurm_owner" || { owned_refuse "$state" "$slurm_owner"; return 2; }
  # Jobs first, so no task outlives its slurmd.
  if [ -f "$state/slurm.conf" ] && [ -f "$state/slurmctld.pid" ]; then
    SLURM_CONF="$state/slurm.conf" timeout 10 scancel --quiet --full --user=root 2>/dev/null || true
  fi
  # The slurmds (one, or one per simulated host: slurmd-<node>.pid) and slurmctld together, each
  # takes about 2 s to stop; munged after them.
  # shellcheck disable=SC2046  # one pid a word
  slurm_stop_pids "$(owned_pids "$state/" $(cat "$state"/slurmd*.pid "$state/slurmctld.pid" 2>/dev/null))"
  # shellcheck disable=SC2046
  slurm_stop_pids "$(owned_pids "$state/" $(cat "$state/munged.pid" 2>/dev/null))"
  # slurmstepd processes of steps still running (they are children of init once slurmd is gone).
  local stepd
  for stepd in $(pgrep -f "slurmstepd.*" 2>/dev/null || true); do
    if tr '\0' '\n' <"/proc/$stepd/environ" 2>/dev/null | grep -qx "SLURM_CONF=$state/slurm.conf"; then
      kill -KILL "$stepd" 2>/dev/null || true
    fi
  done
  slurm_cluster_down "$state"
  owned_folder_remove "$state" "$slurm_owner"
}
