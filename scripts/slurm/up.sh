#!/usr/bin/env bash
# Starts a local Slurm for tests and for trying docs/slurm.md: munged and slurmctld on this
# machine, and one slurmd, or one per simulated host with --nodes 2-4; all as root, with every
# file in one state folder (scripts/slurm/lib.sh).
#
#   scripts/slurm/up.sh [--nodes N] [--rate 1gbit] [--delay-ms 1] [--loss 0] [--slow-host d]
#                       [--slow-delay-ms 10] [--traffic shaped|plain] [--bin-dir build/bin]
#   . "${CB_SLURM_STATE:-/tmp/collbench-slurm}/env.sh"
#   scripts/slurm/down.sh
#
# One node (the default): named after this host (so SLURM_JOB_NODELIST's first name resolves, as
# on a real cluster), declares 4 CPUs whatever the machine has (SlurmdParameters=config_overrides)
# and its partition allows oversubscription, so srun -n 4 runs on a 2-core machine.
#
# --nodes 2-4: the star of scripts/cluster/lib.sh, a network namespace per host around a switch
# namespace, with a plain (veth, unshaped) and a shaped (TUN: --rate per host and direction,
# --delay-ms host to host, --loss per forwarder crossing, --slow-host one host whose forwarder holds
# packets --slow-delay-ms each way) link per host. Each host runs one slurmd in its namespace under
# its own host name (a UTS namespace): node1 ... nodeN, NodeAddr its plain address, names resolved
# through the state folder's hosts file, mounted over /etc/hosts for the slurmds and their tasks
# only (a mount namespace). This machine joins the plain subnet through a veth into the switch (the .254 address), so
# srun, sbatch and slurmctld run here as on a login node. env.sh sends MPI's and Gloo's traffic
# over the shaped links (--traffic plain: the plain ones). Each node declares 4 CPUs.
#
# Idempotent: when this state folder's Slurm already answers with the same nodes it says so and
# exits 0. On any failure it stops what it started and removes the folder. CB_SLURM_STATE may name
# a folder that does not exist yet or is empty; one holding anything up.sh did not make is refused
# (exit 2, scripts/owned.sh). Exit: 0 up, 1 failed to
# start, 2 bad usage, not root or packages missing (one line on stderr).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# shellcheck source=lib.sh
. "$here/lib.sh"

nodes=1 rate=1gbit delay_ms=1 loss=0 slow_host="" slow_delay_ms=10 traffic=shaped bin_dir="$root/build/bin"
usage_error() { slurm_log "error: $*"; exit 2; }
while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || usage_error "$1 needs a value (see the usage at the top of $0)"
  case $1 in
    --nodes) nodes=$2 ;;
    --rate) rate=$2 ;;
    --delay-ms) delay_ms=$2 ;;
    --loss) loss=$2 ;;
    --slow-host) slow_host=$2 ;;
    --slow-delay-ms) slow_delay_ms=$2 ;;
    --traffic) traffic=$2 ;;
    --bin-dir) bin_dir=$2 ;;
    *) usage_error "unknown argument $1 (see the usage at the top of $0)" ;;
  esac
  shift 2
done
case $nodes in 1|2|3|4) ;; *) usage_error "--nodes takes 1 to 4, not '$nodes'" ;; esac
case $traffic in shaped|plain) ;; *) usage_error "--traffic takes shaped or plain, not '$traffic'" ;; esac
slow_index=""
if [ -n "$slow_host" ]; then
  case $slow_host in a) slow_index=0 ;; b) slow_index=1 ;; c) slow_index=2 ;; d) slow_index=3 ;;
    *) usage_error "--slow-host takes a host letter a-d, not '$slow_host'" ;; esac
  [ "$slow_index" -lt "$nodes" ] || usage_error "--slow-host $slow_host: there are only $nodes hosts"
fi
for number in "$delay_ms" "$loss" "$slow_delay_ms"; do
  [[ $number =~ ^[0-9]+(\.[0-9]+)?$ ]] || usage_error "'$number' is not a non-negative number (--delay-ms, --loss, --slow-delay-ms)"
done

state=$(slurm_state_dir)
# A folder up.sh did not make (a user's reports, say) is refused before anything runs or is removed.
owned_folder_usable "$state" "$slurm_owner" || exit 2
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
if [ "$nodes" -gt 1 ]; then
  # shellcheck source=../cluster/lib.sh
  . "$root/scripts/cluster/lib.sh"
  why=$(cluster_unavailable unshare tc timeout)
  [ -z "$why" ] || { slurm_log "error: --nodes $nodes: $why"; exit 2; }
  [ -x "$bin_dir/tun_forwarder" ] || { slurm_log "error: --nodes $nodes: no $bin_dir/tun_forwarder (build collbench, or --bin-dir)"; exit 2; }
fi

if [ -f "$state/env.sh" ] && SLURM_CONF="$state/slurm.conf" timeout 5 sinfo -h -o %T 2>/dev/null | grep -q idle; then
  running=$(SLURM_CONF="$state/slurm.conf" timeout 5 sinfo -h -N -o %N | sort -u | grep -c .)
  if [ "$running" -ne "$nodes" ]; then
    slurm_log "error: already up in $state with $running node(s), not $nodes: scripts/slurm/down.sh first"
    exit 2
  fi
  slurm_log "already up ($state, $running node(s))"
  exit 0
fi
# A half-started leftover from a killed run: clear it before starting again.
if [ ! -e "$state" ] || owned_folder_is "$state" "$slurm_owner"; then slurm_stop "$state"; else slurm_cluster_down "$state"; fi

owned_folder_make "$state" "$slurm_owner" || exit 2
chmod 700 "$state"
started=0
cleanup_on_failure() {
  [ "$started" -eq 1 ] && return
  slurm_log "failed to start; logs:"
  tail -n 5 "$state"/*.log >&2 2>/dev/null || true
  slurm_stop "$state"
}
trap cleanup_on_failure EXIT

# A free block of 60 ports in 30000-32579: slurmctld, slurmd, then srun's range of 58. Below Linux's
# ephemeral ports (32768 on), and away from 10000-29999, where collbench derives MASTER_PORT for
# runs under srun without MPI (docs/slurm.md). Each srun step holds several listening ports (its
# messages, its tasks' stdio) for its whole life: with 18, four tests' steps at once (ctest -j 8 of
# the slurm_nodes label) exhausted the range ("sock_bind_listen_range: all ports in range ...
# exhausted", 2026-12-07).
free_port() {
  local port tries
  for ((tries = 0; tries < 200; tries++)); do
    port=$((30000 + (RANDOM % 43) * 60))
    if ! ss -Htan "( sport >= :$port and sport <= :$((port + 59)) )" 2>/dev/null | grep -q .; then
      echo "$port"
      return 0
    fi
  done
  return 1
}
base=$(free_port) || { slurm_log "error: no free port block in 30000-32579"; exit 1; }
ctld_port=$base slurmd_port=$((base + 1)) srun_low=$((base + 2)) srun_high=$((base + 59))
ctld_address=127.0.0.1
node_lines=() node_names=()
if [ "$nodes" -eq 1 ]; then
  node_names=("$(hostname -s)")
  node_lines=("NodeName=${node_names[0]} NodeAddr=127.0.0.1")
else
  slurm_cluster_names "$state"
  export CB_CLUSTER_PREFIX=$SLURM_NS_PREFIX CB_CLUSTER_NET=$SLURM_NET
  # The machine routes to the plain subnet through the uplink: a route already there is another
  # star's (a second state folder whose hash picked the same subnet), and sharing it would cross them.
  if ip route show | grep -q "^$SLURM_NET\."; then
    slurm_log "error: $SLURM_NET.0.0/16 is already routed on this machine ($(ip route show | grep -m1 "^$SLURM_NET\.")); set CB_SLURM_NET=10.N to another"
    exit 1
  fi
  MTU=9000
  star_up "$nodes" >"$state/star.log" 2>&1 || { cat "$state/star.log" >&2; exit 1; }
  ctld_address=$SLURM_NET.0.254
  # The machine's end of the plain subnet, as a login node's: on the switch's bridge.
  ip link add "$SLURM_UPLINK" type veth peer name cbveth-up netns "$STAR_SWITCH"
  ip -n "$STAR_SWITCH" link set cbveth-up mtu "$MTU" master "$STAR_BRIDGE" up
  ip link set "$SLURM_UPLINK" mtu "$MTU" up
  ip addr add "$ctld_address/24" dev "$SLURM_UPLINK"
  # Shaping writes the forwarders' pids at once, so down.sh stops them even if a later step fails.
  # Their output goes to files: an inherited stdout would keep a caller's pipe open (ctest, $(...)).
  star_shape "$rate" "$delay_ms" "$loss" "$bin_dir/tun_forwarder" "$state" >>"$state/star.log" 2>&1 </dev/null ||
    { printf '%s\n' "${STAR_FORWARDER_PIDS[@]}" >"$state/forwarder.pids"; cat "$state/star.log" >&2; exit 1; }
  printf '%s\n' "${STAR_FORWARDER_PIDS[@]}" >"$state/forwarder.pids"
  if [ -n "$slow_index" ]; then
    star_slow_host "$slow_index" "$slow_delay_ms" "$loss" "$bin_dir/tun_forwarder" "$state" >>"$state/star.log" 2>&1 </dev/null ||
      { printf '%s\n' "${STAR_FORWARDER_PIDS[@]}" >"$state/forwarder.pids"; cat "$state/star.log" >&2; exit 1; }
    printf '%s\n' "${STAR_FORWARDER_PIDS[@]}" >"$state/forwarder.pids"
  fi
  hosts_file="127.0.0.1 localhost"$'\n'"$ctld_address collbench-login"
  for ((i = 0; i < nodes; i++)); do
    node_names+=("node$((i + 1))")
    node_lines+=("NodeName=node$((i + 1)) NodeAddr=${STAR_PLAIN[$i]}")
    hosts_file+=$'\n'"${STAR_PLAIN[$i]} node$((i + 1))"
  done
  echo "$hosts_file" >"$state/hosts"
fi

mkdir -p "$state/spool/ctld" "$state/munge"
for name in "${node_names[@]}"; do mkdir -p "$state/spool/d-$name" "$state/tmp-$name"; done
chmod 700 "$state/munge"
dd if=/dev/urandom of="$state/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$state/munge/munge.key"
munged --force --socket="$state/munge/munge.socket" --key-file="$state/munge/munge.key" \
  --pid-file="$state/munged.pid" --seed-file="$state/munge/seed" --log-file="$state/munged.log"

cat >"$state/slurm.conf" <<CONF
# Written by scripts/slurm/up.sh: a one-machine Slurm for collbench's tests.
ClusterName=collbench
SlurmctldHost=localhost($ctld_address)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SrunPortRange=$srun_low-$srun_high
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$state/munge/munge.socket
StateSaveLocation=$state/spool/ctld
SlurmdSpoolDir=$state/spool/d-%n
# Per node, like the spool: the simulated hosts share one /tmp, where PMIx's per-step folder would
# otherwise clash (slurm_get_tmp_fs expands %n).
TmpFS=$state/tmp-%n
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd-%n.pid
SlurmctldLogFile=$state/slurmctld.log
SlurmdLogFile=$state/slurmd-%n.log
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
CONF
for line in "${node_lines[@]}"; do
  echo "$line CPUs=4 Boards=1 SocketsPerBoard=1 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=1000 State=UNKNOWN" >>"$state/slurm.conf"
done
node_list=$(IFS=,; echo "${node_names[*]}")
echo "PartitionName=debug Nodes=$node_list Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4" >>"$state/slurm.conf"

cat >"$state/env.sh" <<ENV
# Points Slurm's clients at the local Slurm in $state (scripts/slurm/up.sh).
export SLURM_CONF=$state/slurm.conf
ENV
if [ "$nodes" -gt 1 ]; then
  if [ "$traffic" = shaped ]; then network=$STAR_SHAPED_NET interface=$TUN; else network=$STAR_PLAIN_NET interface=$VETH; fi
  cat >>"$state/env.sh" <<ENV
# The simulated hosts' subnets ($nodes hosts: ${STAR_HOSTS[*]}); up.sh's link options:
# --rate $rate --delay-ms $delay_ms --loss $loss${slow_host:+ --slow-host $slow_host --slow-delay-ms $slow_delay_ms}.
export CB_SLURM_PLAIN_NET=$STAR_PLAIN_NET CB_SLURM_SHAPED_NET=$STAR_SHAPED_NET
export CB_SLURM_PLAIN_IFACE=$VETH CB_SLURM_SHAPED_IFACE=$TUN
# MPI's and Gloo's traffic between the hosts takes the $traffic links (srun passes these on to
# the tasks). Open MPI would otherwise spread it over both.
export OMPI_MCA_btl_tcp_if_include=$network GLOO_SOCKET_IFNAME=$interface
ENV
fi

export SLURM_CONF="$state/slurm.conf"
slurmctld -f "$SLURM_CONF"
if [ "$nodes" -eq 1 ]; then
  slurmd -f "$SLURM_CONF" -N "${node_names[0]}"
else
  for ((i = 0; i < nodes; i++)); do
    # nsenter, not ip netns exec: that mounts a fresh /sys without the machine's cgroup mounts,
    # and slurmd 22.05 refuses to start without them even when it tracks tasks by process group.
    # The node's names resolve through a private mount of the state folder's hosts file.
    # shellcheck disable=SC2016  # expanded by the inner sh
    nsenter --net="/run/netns/${STAR_HOSTS[$i]}" unshare --uts --mount --propagation private -- \
      sh -c 'hostname "$1" && mount --bind "$3" /etc/hosts && exec slurmd -f "$2" -N "$1"' \
      up "${node_names[$i]}" "$SLURM_CONF" "$state/hosts" </dev/null
  done
fi

for ((tries = 0; tries < 150; tries++)); do
  if [ "$(timeout 5 sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | grep -c .)" -eq "$nodes" ]; then
    started=1
    if [ "$nodes" -eq 1 ]; then
      slurm_log "up: $(sinfo --version), node ${node_names[0]} (4 CPUs), ports $ctld_port-$srun_high, state $state"
    else
      slurm_log "up: $(sinfo --version), nodes $node_list (4 CPUs each) on ${STAR_HOSTS[*]}," \
        "plain $STAR_PLAIN_NET, shaped $STAR_SHAPED_NET ($rate, $delay_ms ms, loss $loss${slow_host:+, host $slow_host slow: $slow_delay_ms ms each way})," \
        "MPI and Gloo over the $traffic links, ports $ctld_port-$srun_high, state $state"
    fi
    echo "$state/env.sh"
    exit 0
  fi
  sleep 0.2
done
slurm_log "error: not every node became idle in 30 s: $(timeout 5 sinfo -h -N -o '%N %T %E' 2>&1 | tr '\n' ';')"
exit 1
