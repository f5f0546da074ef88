# shellcheck shell=bash
# Shared by up.sh, down.sh and the slurm tests: where a local Slurm's state lives and how to stop it.
#
# One local Slurm per state folder. CB_SLURM_STATE names it (default: /tmp/collbench-slurm); the
# folder holds the munge key and socket, slurm.conf, the daemons' pid files, logs and spool, and
# env.sh, which points clients (srun, sbatch, squeue) at this Slurm. Two copies with different
# folders never share a port, socket or file.

slurm_log() { echo "slurm: $*" >&2; }

slurm_state_dir() { echo "${CB_SLURM_STATE:-/tmp/collbench-slurm}"; }

# Stops the daemons whose pid files are in state folder $1 (munged last: slurmd and slurmctld
# authenticate through it while they shut down), then removes the folder. Never fails.
slurm_stop() {
  local state=$1 name pid tries
  [ -d "$state" ] || return 0
  # Jobs first, so no task outlives its slurmd.
  if [ -f "$state/slurm.conf" ] && [ -f "$state/slurmctld.pid" ]; then
    SLURM_CONF="$state/slurm.conf" timeout 10 scancel --quiet --full --user=root 2>/dev/null || true
  fi
  for name in slurmd slurmctld munged; do
    [ -f "$state/$name.pid" ] || continue
    pid=$(cat "$state/$name.pid" 2>/dev/null || true)
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || continue
    kill -TERM "$pid" 2>/dev/null || true
    for ((tries = 0; tries < 50; tries++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
  done
  # slurmstepd processes of steps still running (they are children of init once slurmd is gone).
  local stepd
  for stepd in $(pgrep -f "slurmstepd.*" 2>/dev/null || true); do
    if tr '\0' '\n' <"/proc/$stepd/environ" 2>/dev/null | grep -qx "SLURM_CONF=$state/slurm.conf"; then
      kill -KILL "$stepd" 2>/dev/null || true
    fi
  done
  rm -rf "$state"
}
