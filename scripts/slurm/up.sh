#!/usr/bin/env bash
# Starts a one-machine Slurm for tests and for trying docs/slurm.md: munged, slurmctld and one
# slurmd, all as root, with every file in one state folder (scripts/slurm/lib.sh).
#
#   scripts/slurm/up.sh            # then: . "${CB_SLURM_STATE:-/tmp/collbench-slurm}/env.sh"
#   scripts/slurm/down.sh
#
# One node, named after this host (so SLURM_JOB_NODELIST's first name resolves, as on a real
# cluster), declares 4 CPUs whatever the machine has (SlurmdParameters=config_overrides)
# and its partition allows oversubscription, so srun -n 4 runs on a 2-core machine. Idempotent:
# when this state folder's Slurm already answers it says so and exits 0. On any failure it stops
# what it started and removes the folder. Exit: 0 up, 1 failed to start, 2 not root or packages
# missing (one line on stderr).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib.sh
. "$here/lib.sh"

state=$(slurm_state_dir)
if [ "$(id -u)" -ne 0 ]; then
  slurm_log "error: needs root (slurmd starts tasks as any user; munged runs as root here)"
  exit 2
fi
for tool in munged slurmctld slurmd srun sbatch sinfo scontrol; do
  if ! command -v "$tool" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$tool" ]; then
    slurm_log "error: $tool not found; install munge slurmctld slurmd slurm-client slurm-wlm-basic-plugins (scripts/setup.sh)"
    exit 2
  fi
done
PATH=$PATH:/usr/sbin

if [ -f "$state/env.sh" ] && SLURM_CONF="$state/slurm.conf" timeout 5 sinfo -h -o %T 2>/dev/null | grep -q idle; then
  slurm_log "already up ($state)"
  exit 0
fi
# A half-started leftover from a killed run: clear it before starting again.
slurm_stop "$state"

mkdir -p "$state"
chmod 700 "$state"
started=0
cleanup_on_failure() {
  [ "$started" -eq 1 ] && return
  slurm_log "failed to start; logs:"
  tail -n 5 "$state"/*.log 2>/dev/null >&2 || true
  slurm_stop "$state"
}
trap cleanup_on_failure EXIT

# A free block of 20 ports in 30000-32599: slurmctld, slurmd, then srun's range. Below Linux's
# ephemeral ports (32768 on), and away from 10000-29999, where collbench derives MASTER_PORT for
# runs under srun without MPI (docs/slurm.md).
free_port() {
  local port tries
  for ((tries = 0; tries < 200; tries++)); do
    port=$((30000 + (RANDOM % 130) * 20))
    if ! ss -Htan "( sport >= :$port and sport <= :$((port + 19)) )" 2>/dev/null | grep -q .; then
      echo "$port"
      return 0
    fi
  done
  return 1
}
base=$(free_port) || { slurm_log "error: no free port block in 30000-32599"; exit 1; }
node=$(hostname -s)
ctld_port=$base slurmd_port=$((base + 1)) srun_low=$((base + 2)) srun_high=$((base + 19))

mkdir -p "$state/spool/ctld" "$state/spool/d" "$state/munge"
chmod 700 "$state/munge"
dd if=/dev/urandom of="$state/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$state/munge/munge.key"
munged --force --socket="$state/munge/munge.socket" --key-file="$state/munge/munge.key" \
  --pid-file="$state/munged.pid" --seed-file="$state/munge/seed" --log-file="$state/munged.log"

cat >"$state/slurm.conf" <<CONF
# Written by scripts/slurm/up.sh: a one-machine Slurm for collbench's tests.
ClusterName=collbench
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SrunPortRange=$srun_low-$srun_high
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$state/munge/munge.socket
StateSaveLocation=$state/spool/ctld
SlurmdSpoolDir=$state/spool/d
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/slurmctld.log
SlurmdLogFile=$state/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# No cgroups here (no systemd, maybe a container): process groups track tasks.
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
# Tests cancel steps and kill tasks; don't wait the default 30 s for them to go.
KillWait=2
# A finished job's record must outlive sbatch --wait's polls (2-10 s apart, up to 32 s in newer
# Slurm): once purged, sbatch says "no longer found and exit code not found" and exits 0, so a
# failed job would pass (seen with 2).
MinJobAge=60
InactiveLimit=0
NodeName=$node NodeAddr=127.0.0.1 CPUs=4 Boards=1 SocketsPerBoard=1 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF

cat >"$state/env.sh" <<ENV
# Points Slurm's clients at the local Slurm in $state (scripts/slurm/up.sh).
export SLURM_CONF=$state/slurm.conf
ENV

export SLURM_CONF="$state/slurm.conf"
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF" -N "$node"

for ((tries = 0; tries < 100; tries++)); do
  if timeout 5 sinfo -h -o %T 2>/dev/null | grep -q idle; then
    started=1
    slurm_log "up: $(sinfo --version), node $node (4 CPUs), ports $ctld_port-$srun_high, state $state"
    echo "$state/env.sh"
    exit 0
  fi
  sleep 0.2
done
slurm_log "error: the node did not become idle in 20 s: $(timeout 5 sinfo -h -N -o '%N %T %E' 2>&1 | head -1)"
exit 1
