# shellcheck shell=bash disable=SC2034  # the names are used by the scripts that source this
# Functions for the simulated two-host cluster; sourced by run.sh and down.sh (bash, root).
#
# Two network namespaces, "host a" and "host b", each with its own hostname (a UTS namespace
# entered per process), joined by two links that exist only inside them:
#   plain:  a veth pair           cbveth  10.213.0.1/24 <-> 10.213.0.2/24
#   shaped: two TUN devices       cbtun   10.213.1.1/24 <-> 10.213.1.2/24
#           tbf rate limit on each TUN's egress, tun_forwarder (delay + loss) in between.
# Addresses and routes live only in the two namespaces (the subnets may repeat across runs with
# other prefixes), so nothing reaches or leaves the machine's real interfaces.

# This folder (rsh-agent.sh lives here), whoever sources this file.
CLUSTER_SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# Why this machine cannot host the simulated cluster, or nothing when it can: root, `ip netns`, a
# TUN device, UTS namespaces and the programs named. The cluster tests skip (exit 77) with it.
cluster_unavailable() {
  [ "$(id -u)" -eq 0 ] || { echo "needs root (network namespaces)"; return; }
  command -v ip >/dev/null || { echo "needs iproute2 (ip)"; return; }
  ip netns list >/dev/null 2>&1 || { echo "'ip netns' is unavailable"; return; }
  [ -c /dev/net/tun ] || { echo "no /dev/net/tun for the shaped link"; return; }
  local program
  for program in "$@"; do command -v "$program" >/dev/null || { echo "needs $program"; return; }; done
  # A container may be root without the right to make namespaces; find out before building anything.
  local probe="cbprobe$$"
  ip netns add "$probe" 2>/dev/null || { echo "cannot create a network namespace here"; return; }
  ip netns del "$probe"
  unshare --uts true 2>/dev/null || echo "cannot create a UTS namespace here (unshare --uts)"
}

# Everything is named from one prefix so two runs (ctest and a person) never share a namespace.
cluster_names() {
  local prefix=${CB_CLUSTER_PREFIX:-cb}
  NS_A="$prefix-host-a"
  NS_B="$prefix-host-b"
  VETH=cbveth
  TUN=cbtun
  PLAIN_A=10.213.0.1 PLAIN_B=10.213.0.2 PLAIN_NET=10.213.0.0/24
  SHAPED_A=10.213.1.1 SHAPED_B=10.213.1.2 SHAPED_NET=10.213.1.0/24
}

log() { echo "cluster: $*" >&2; }

# The namespaces this file made carry a mark (a file named after each under CLUSTER_MARKS, made
# with the namespace, removed with it): the clean-up touches no namespace, and kills no process in
# one, that a prefix merely names (issue 64: a script removes only what it made).
CLUSTER_MARKS=${CB_CLUSTER_MARKS:-/run/collbench-netns}
CLUSTER_REFUSED=""
cluster_add_namespace() {
  ip netns add "$1" && mkdir -p "$CLUSTER_MARKS" && : >"$CLUSTER_MARKS/$1"
}
# cluster_namespace_removable NS: 0 when NS exists and carries our mark, so it may be removed. A
# namespace of that name without the mark gets one line on stderr.
cluster_namespace_removable() {
  [ -e "/run/netns/$1" ] || return 1
  [ -f "$CLUSTER_MARKS/$1" ] && return 0
  case " $CLUSTER_REFUSED " in *" $1 "*) return 1 ;; esac  # said once (cluster_down and star_down share host a and b)
  CLUSTER_REFUSED+=" $1"
  log "error: namespace $1 exists but was not made by scripts/cluster (no $CLUSTER_MARKS/$1); left alone"
  return 1
}
cluster_remove_namespace() {
  if ip netns del "$1" 2>/dev/null; then rm -f "$CLUSTER_MARKS/$1"; log "removed $1"; else log "warning: could not delete namespace $1"; fi
}

# Kills every process inside namespace $1 (they were all started by this script), bounded.
kill_namespace_pids() {
  local ns=$1 pids tries
  ip netns pids "$ns" >/dev/null 2>&1 || return 0
  for signal in TERM KILL; do
    pids=$(ip netns pids "$ns" 2>/dev/null || true)
    [ -z "$pids" ] && return 0
    # shellcheck disable=SC2086
    kill -s "$signal" $pids 2>/dev/null || true
    for ((tries = 0; tries < 30; tries++)); do
      [ -z "$(ip netns pids "$ns" 2>/dev/null || true)" ] && return 0
      sleep 0.1
    done
  done
  log "warning: processes still in $ns: $(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')"
}

# Stops the forwarder, then removes processes, devices and namespaces. Safe to call twice and
# on a half-built cluster; never fails (it runs from an EXIT trap).
cluster_down() {
  cluster_names
  if [ -n "${FORWARDER_PID:-}" ] && kill -0 "$FORWARDER_PID" 2>/dev/null; then
    kill -TERM "$FORWARDER_PID" 2>/dev/null || true
    timeout 5 tail --pid="$FORWARDER_PID" -f /dev/null 2>/dev/null || kill -KILL "$FORWARDER_PID" 2>/dev/null || true
  fi
  FORWARDER_PID=
  local ns
  for ns in "$NS_A" "$NS_B"; do
    cluster_namespace_removable "$ns" || continue
    kill_namespace_pids "$ns"
    ip -n "$ns" link del "$TUN" 2>/dev/null || true
    ip -n "$ns" link del "$VETH" 2>/dev/null || true  # takes its peer with it
    cluster_remove_namespace "$ns"
  done
}

# Creates both namespaces, the plain veth link and the (not yet shaped) TUN devices.
cluster_up() {
  cluster_names
  local ns
  for ns in "$NS_A" "$NS_B"; do
    if [ -e "/run/netns/$ns" ]; then
      log "namespace $ns exists (another run, or a leftover: scripts/cluster/down.sh with CB_CLUSTER_PREFIX=${CB_CLUSTER_PREFIX:-cb})"
      return 1
    fi
  done
  cluster_add_namespace "$NS_A"
  cluster_add_namespace "$NS_B"
  # Created directly inside the namespaces: the root namespace never sees these devices.
  ip -n "$NS_A" link add "$VETH" type veth peer name "$VETH" netns "$NS_B"
  local side address tun_address
  for side in a b; do
    if [ $side = a ]; then ns=$NS_A address=$PLAIN_A tun_address=$SHAPED_A; else ns=$NS_B address=$PLAIN_B tun_address=$SHAPED_B; fi
    ip -n "$ns" link set lo up
    ip -n "$ns" link set "$VETH" mtu "$MTU" up
    ip -n "$ns" addr add "$address/24" dev "$VETH"
    ip -n "$ns" tuntap add dev "$TUN" mode tun
    # txqueuelen bounds the packets waiting for the forwarder to read them; the default 500
    # drops under a 1 Gbit/s burst before tbf has a say.
    ip -n "$ns" link set "$TUN" mtu "$MTU" txqueuelen 10000 up
    ip -n "$ns" addr add "$tun_address/24" dev "$TUN"
    # Linux's default TCP buffer limits cap one connection well below these links (about
    # 340 MB/s was seen); the limits are per namespace, so raising them here touches nothing else.
    ip netns exec "$ns" sysctl -q -w net.ipv4.tcp_rmem="4096 131072 67108864" net.ipv4.tcp_wmem="4096 65536 67108864"
    # net.core.*mem_max are namespaced on newer kernels only, and capped by the root's value there.
    ip netns exec "$ns" sysctl -q -w net.core.rmem_max=67108864 net.core.wmem_max=67108864 2>/dev/null || true
  done
  log "up: $NS_A ($PLAIN_A, $SHAPED_A) <-> $NS_B ($PLAIN_B, $SHAPED_B), MTU $MTU"
}

# Rate limit on both TUN devices' egress, then the forwarder for delay and loss.
# Args: RATE (tc syntax, e.g. 1gbit) DELAY_MS LOSS (fraction) FORWARDER_BINARY LOGFILE
cluster_shape() {
  cluster_names
  local rate=$1 delay_ms=$2 loss=$3 forwarder=$4 logfile=$5 ns
  for ns in "$NS_A" "$NS_B"; do
    # burst: a few jumbo frames; latency bounds the queue tbf may hold (drops beyond, as a switch).
    ip netns exec "$ns" tc qdisc replace dev "$TUN" root tbf rate "$rate" burst 256kb latency 20ms
  done
  local rt=(chrt -f 50)
  # Real-time priority, or the busy-polling ranks starve the forwarder and the delay is meaningless.
  if ! chrt -f 50 true 2>/dev/null; then
    log "warning: cannot use real-time priority here (chrt -f failed); delay figures will be noisy"
    rt=(nice -n -20)
  fi
  "${rt[@]}" "$forwarder" --netns-a "/run/netns/$NS_A" --dev-a "$TUN" --netns-b "/run/netns/$NS_B" --dev-b "$TUN" \
    --delay-ms "$delay_ms" --loss "$loss" --seed 1 2>"$logfile" &
  FORWARDER_PID=$!
  # The link carries traffic once the forwarder has attached to both devices (carrier goes up).
  local tries
  for ((tries = 0; tries < 50; tries++)); do
    if ! kill -0 "$FORWARDER_PID" 2>/dev/null; then
      log "tun_forwarder exited: $(cat "$logfile")"
      return 1
    fi
    if ip -n "$NS_A" -o link show "$TUN" | grep -q LOWER_UP && ip -n "$NS_B" -o link show "$TUN" | grep -q LOWER_UP; then
      log "shaped: $rate, $delay_ms ms each way, loss $loss (forwarder pid $FORWARDER_PID)"
      return 0
    fi
    sleep 0.1
  done
  log "shaped link did not come up"
  return 1
}

# The shaped link's counters (tbf sent/dropped/overlimits per side), for the record of a run.
cluster_link_stats() {
  cluster_names
  local ns
  for ns in "$NS_A" "$NS_B"; do
    echo "== $ns: tc -s qdisc show dev $TUN"
    ip netns exec "$ns" tc -s qdisc show dev "$TUN" 2>&1 || true
  done
}

# ---------------------------------------------------------------------------------------------
# Star cluster: 2 to 4 hosts (namespaces <prefix>-host-a ... -d) around a switch namespace
# (<prefix>-switch), as hosts on one top-of-rack switch:
#   plain:  a veth per host (cbveth, 10.213.0.N/24) into a bridge in the switch, no shaping;
#   shaped: a TUN per host (cbtun, 10.213.1.N/24) joined by one tun_forwarder each to a TUN in the
#           switch (cbtun-a ...), which routes between them. Each host's uplink is rate-limited
#           (tbf on the host's TUN egress) and so is its downlink (tbf on the switch's TUN egress
#           towards it); each forwarder holds packets half the host-to-host delay, so a packet
#           between two hosts crosses two forwarders and waits the whole delay once.
# A host's ranks share its uplink as on a real node; the run.sh two-host cluster above is the
# direct-link variant and stays as it was.
# ---------------------------------------------------------------------------------------------

# Names for a star of $1 hosts: STAR_HOSTS (namespaces), STAR_SWITCH, STAR_PLAIN and STAR_SHAPED
# (addresses, one per host), the plain and shaped subnets (STAR_PLAIN_NET, STAR_SHAPED_NET), and the
# devices. CB_CLUSTER_NET (default 10.213) is the first two octets: a star that the machine itself
# joins (scripts/slurm/up.sh --nodes) needs a subnet no other star on the machine uses.
star_names() {
  local count=$1 prefix=${CB_CLUSTER_PREFIX:-cb} net=${CB_CLUSTER_NET:-10.213} letters=(a b c d) i
  cluster_names
  STAR_SWITCH="$prefix-switch"
  STAR_HOSTS=() STAR_PLAIN=() STAR_SHAPED=()
  for ((i = 0; i < count; i++)); do
    STAR_HOSTS+=("$prefix-host-${letters[$i]}")
    STAR_PLAIN+=("$net.0.$((i + 1))")
    STAR_SHAPED+=("$net.1.$((i + 1))")
  done
  STAR_PLAIN_NET=$net.0.0/24 STAR_SHAPED_NET=$net.1.0/24
  STAR_BRIDGE=cbbridge
}

# Creates the switch, the hosts, the plain bridge and the TUN devices (not yet shaped or joined).
# Args: HOSTS (2 to 4). Uses MTU.
star_up() {
  local count=$1 i ns letter
  if [ "$count" -lt 2 ] || [ "$count" -gt 4 ]; then log "star: 2 to 4 hosts, not $count"; return 2; fi
  star_names "$count"
  for ns in "$STAR_SWITCH" "${STAR_HOSTS[@]}"; do
    if [ -e "/run/netns/$ns" ]; then
      log "namespace $ns exists (another run, or a leftover: scripts/cluster/down.sh with CB_CLUSTER_PREFIX=${CB_CLUSTER_PREFIX:-cb})"
      return 1
    fi
  done
  cluster_add_namespace "$STAR_SWITCH"
  ip -n "$STAR_SWITCH" link set lo up
  ip -n "$STAR_SWITCH" link add "$STAR_BRIDGE" type bridge
  ip -n "$STAR_SWITCH" link set "$STAR_BRIDGE" mtu "$MTU" up
  ip netns exec "$STAR_SWITCH" sysctl -q -w net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 \
    net.ipv4.conf.default.rp_filter=0 net.ipv4.conf.all.send_redirects=0 net.ipv4.conf.default.send_redirects=0
  for ((i = 0; i < count; i++)); do
    ns=${STAR_HOSTS[$i]} letter=${ns##*-}
    cluster_add_namespace "$ns"
    ip -n "$ns" link set lo up
    ip -n "$ns" link add "$VETH" type veth peer name "$VETH-$letter" netns "$STAR_SWITCH"
    ip -n "$ns" link set "$VETH" mtu "$MTU" up
    ip -n "$ns" addr add "${STAR_PLAIN[$i]}/24" dev "$VETH"
    ip -n "$STAR_SWITCH" link set "$VETH-$letter" mtu "$MTU" master "$STAR_BRIDGE" up
    ip -n "$ns" tuntap add dev "$TUN" mode tun
    ip -n "$ns" link set "$TUN" mtu "$MTU" txqueuelen 10000 up
    ip -n "$ns" addr add "${STAR_SHAPED[$i]}/24" dev "$TUN"
    ip -n "$STAR_SWITCH" tuntap add dev "$TUN-$letter" mode tun
    ip -n "$STAR_SWITCH" link set "$TUN-$letter" mtu "$MTU" txqueuelen 10000 up
    ip -n "$STAR_SWITCH" route add "${STAR_SHAPED[$i]}/32" dev "$TUN-$letter"
    # Socket buffers start at 4 MiB, above the shaped link's bandwidth-delay product (1gbit x 20 ms
    # = 2.5 MB): with Linux's 128 KiB start, a connection's first messages are bounded by its
    # window, not by the link, and more so the longer the delay.
    ip netns exec "$ns" sysctl -q -w net.ipv4.tcp_rmem="4096 4194304 67108864" net.ipv4.tcp_wmem="4096 4194304 67108864"
    ip netns exec "$ns" sysctl -q -w net.core.rmem_max=67108864 net.core.wmem_max=67108864 2>/dev/null || true
    # A collective's connections sit idle between iterations longer than an RTO; restarting slow
    # start after each pause would make a message's time depend on the gap before it.
    ip netns exec "$ns" sysctl -q -w net.ipv4.tcp_slow_start_after_idle=0
  done
  log "star up: ${STAR_HOSTS[*]} around $STAR_SWITCH (plain $STAR_PLAIN_NET, shaped $STAR_SHAPED_NET), MTU $MTU"
}

STAR_FORWARDER_PIDS=()

# Shapes the star's links: RATE (tc syntax, per host and direction), DELAY_MS host to host one
# way, LOSS per forwarder crossing, FORWARDER binary, LOGDIR for the forwarders' logs, BURST (tbf,
# default two frames or 1 ms at the rate, whichever is larger: a large burst lets messages up to
# its size past the rate limit and bends the time-per-byte line). Replaces an earlier shaping.
star_shape() {
  local rate=$1 delay_ms=$2 loss=$3 forwarder=$4 logdir=$5 burst=${6:-} count=${#STAR_HOSTS[@]} i ns letter
  star_unshape
  if [ -z "$burst" ]; then
    burst=$(star_default_burst "$rate") || { log "star: cannot read rate $rate"; return 2; }
  fi
  local half
  half=$(awk -v d="$delay_ms" 'BEGIN { printf "%.6g", d / 2 }')
  local rt=(chrt -f 50)
  if ! chrt -f 50 true 2>/dev/null; then
    log "warning: cannot use real-time priority here (chrt -f failed); delay figures will be noisy"
    rt=(nice -n -20)
  fi
  for ((i = 0; i < count; i++)); do
    ns=${STAR_HOSTS[$i]} letter=${ns##*-}
    # latency 200ms: the queue a host's burst may build before tbf drops (a deep switch buffer).
    ip netns exec "$ns" tc qdisc replace dev "$TUN" root tbf rate "$rate" burst "$burst" latency 200ms
    ip netns exec "$STAR_SWITCH" tc qdisc replace dev "$TUN-$letter" root tbf rate "$rate" burst "$burst" latency 200ms
    "${rt[@]}" "$forwarder" --netns-a "/run/netns/$ns" --dev-a "$TUN" --netns-b "/run/netns/$STAR_SWITCH" --dev-b "$TUN-$letter" \
      --delay-ms "$half" --loss "$loss" --seed $((i + 1)) 2>"$logdir/tun_forwarder-$letter.log" &
    STAR_FORWARDER_PIDS+=($!)
  done
  local tries up
  for ((tries = 0; tries < 50; tries++)); do
    up=0
    for ((i = 0; i < count; i++)); do
      kill -0 "${STAR_FORWARDER_PIDS[$i]}" 2>/dev/null || { log "tun_forwarder for ${STAR_HOSTS[$i]} exited"; return 1; }
      ns=${STAR_HOSTS[$i]} letter=${ns##*-}
      ip -n "$ns" -o link show "$TUN" | grep -q LOWER_UP && ip -n "$STAR_SWITCH" -o link show "$TUN-$letter" | grep -q LOWER_UP && up=$((up + 1))
    done
    if [ "$up" -eq "$count" ]; then
      log "star shaped: $rate per host and direction (tbf burst $burst B), $delay_ms ms host to host ($half ms per forwarder), loss $loss per crossing"
      return 0
    fi
    sleep 0.1
  done
  log "star: shaped links did not come up"
  return 1
}

# Stops the star's forwarders (they print their counts into their logs).
star_unshape() {
  local pid
  for pid in "${STAR_FORWARDER_PIDS[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
    timeout 5 tail --pid="$pid" -f /dev/null 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
  done
  STAR_FORWARDER_PIDS=()
}

# star_shape's default tbf burst in bytes for RATE: 1 ms at the rate, at least two frames (MTU).
star_default_burst() {
  local bits burst
  bits=$(tc_rate_bits "$1") || return 2
  burst=$((bits / 8 / 1000))
  [ "$burst" -lt $((2 * MTU)) ] && burst=$((2 * MTU))
  echo "$burst"
}

# Bits per second of a tc rate (100mbit, 1gbit, 500kbit, 12500000bit).
tc_rate_bits() {
  awk -v r="$1" 'BEGIN {
    n = r + 0; u = tolower(substr(r, length(n "") + 1))
    m = (u == "bit" || u == "") ? 1 : (u == "kbit") ? 1e3 : (u == "mbit") ? 1e6 : (u == "gbit") ? 1e9 : -1
    if (n <= 0 || m < 0) exit 1
    printf "%d", n * m }'
}

# Removes the star's forwarders, host namespaces and switch (hosts a to d). Never fails.
star_down() {
  star_unshape
  star_names 4
  local ns
  for ns in "${STAR_HOSTS[@]}" "$STAR_SWITCH"; do
    cluster_namespace_removable "$ns" || continue
    kill_namespace_pids "$ns"
    cluster_remove_namespace "$ns"
  done
}

# Runs a command on the star as mpirun from host a (under that host's name), with RANKS_PER_HOST
# ranks on each of the first NP/RANKS_PER_HOST hosts in blocks (mpirun's default by-slot mapping:
# ranks 0..R-1 on host a, ...), MPI traffic on the shaped or plain subnet, the launch on the plain one.
# Args: NP RANKS_PER_HOST LINK(shaped|plain) WORKDIR -- PROGRAM ARGS...
# Ranks are not bound (every "host" is this machine) and yield when idle: with more ranks than
# cores, busy-polling ranks would take the cores from the ranks that have data.
star_mpirun() {
  local np=$1 per_host=$2 link=$3 workdir=$4 i hosts network map=""
  shift 4
  [ "${1:-}" = -- ] && shift
  hosts=$((np / per_host))
  if [ $((hosts * per_host)) -ne "$np" ] || [ "$hosts" -gt "${#STAR_HOSTS[@]}" ] || [ "$hosts" -lt 1 ]; then
    log "star_mpirun: $np ranks at $per_host per host do not fit ${#STAR_HOSTS[@]} hosts"
    return 2
  fi
  : >"$workdir/hostfile"
  for ((i = 0; i < hosts; i++)); do
    printf '%s slots=%d\n' "${STAR_PLAIN[$i]}" "$per_host" >>"$workdir/hostfile"
    map+="${STAR_PLAIN[$i]}=${STAR_HOSTS[$i]} "
  done
  if [ "$link" = shaped ]; then network=$STAR_SHAPED_NET; else network=$STAR_PLAIN_NET; fi
  # shellcheck disable=SC2016  # expanded by the inner sh
  CB_CLUSTER_HOSTS="$map" ip netns exec "${STAR_HOSTS[0]}" unshare --uts -- \
    sh -c 'hostname "$1" && shift && exec "$@"' star "${STAR_HOSTS[0]}" \
    mpirun --allow-run-as-root -np "$np" --hostfile "$workdir/hostfile" --map-by slot --bind-to none \
    --mca plm_rsh_agent "$CLUSTER_SCRIPTS/rsh-agent.sh" --mca mpi_yield_when_idle 1 \
    --mca btl tcp,self --mca btl_tcp_if_include "$network" --mca oob_tcp_if_include "$STAR_PLAIN_NET" \
    "$@"
}

# The star's shaped links' counters, for the record of a run.
star_link_stats() {
  local ns letter
  for ns in "${STAR_HOSTS[@]}"; do
    letter=${ns##*-}
    echo "== $ns: tc -s qdisc show dev $TUN"
    ip netns exec "$ns" tc -s qdisc show dev "$TUN" 2>&1 || true
    echo "== $STAR_SWITCH: tc -s qdisc show dev $TUN-$letter"
    ip netns exec "$STAR_SWITCH" tc -s qdisc show dev "$TUN-$letter" 2>&1 || true
  done
}

# Makes one host's link slower than the others on a shaped star: replaces host INDEX's (0-based)
# forwarder with one that holds packets HALF_DELAY_MS each way (a packet to or from that host
# crosses it and one other host's forwarder), so exactly the links touching that host are slower.
# Args: INDEX HALF_DELAY_MS LOSS FORWARDER LOGDIR. After star_shape.
star_slow_host() {
  local index=$1 half=$2 loss=$3 forwarder=$4 logdir=$5 ns letter tries
  ns=${STAR_HOSTS[$index]} letter=${ns##*-}
  local old=${STAR_FORWARDER_PIDS[$index]}
  kill -TERM "$old" 2>/dev/null || true
  timeout 5 tail --pid="$old" -f /dev/null 2>/dev/null || kill -KILL "$old" 2>/dev/null || true
  local rt=(chrt -f 50)
  chrt -f 50 true 2>/dev/null || rt=(nice -n -20)
  "${rt[@]}" "$forwarder" --netns-a "/run/netns/$ns" --dev-a "$TUN" --netns-b "/run/netns/$STAR_SWITCH" --dev-b "$TUN-$letter" \
    --delay-ms "$half" --loss "$loss" --seed $((index + 101)) 2>"$logdir/tun_forwarder-$letter-slow.log" &
  STAR_FORWARDER_PIDS[$index]=$!
  for ((tries = 0; tries < 50; tries++)); do
    kill -0 "${STAR_FORWARDER_PIDS[$index]}" 2>/dev/null || { log "slow forwarder for $ns exited"; return 1; }
    if ip -n "$ns" -o link show "$TUN" | grep -q LOWER_UP && ip -n "$STAR_SWITCH" -o link show "$TUN-$letter" | grep -q LOWER_UP; then
      log "star: $ns made slow: $half ms per crossing of its forwarder"
      return 0
    fi
    sleep 0.1
  done
  log "star: the slow link of $ns did not come up"
  return 1
}

# Makes one host's link a lower rate than the others on a shaped star, as a port that trained down
# to a lower speed: host INDEX's (0-based) uplink and downlink tbf get RATE (tc syntax) and the
# default burst at that rate; its forwarder and every other host stay as they were. Unlike
# star_slow_host's added delay, which a bandwidth-bound message over TCP barely notices, the link
# is then the bottleneck of every message through it. Args: INDEX RATE. After star_shape.
star_slow_rate() {
  local index=$1 rate=$2 ns letter burst
  ns=${STAR_HOSTS[$index]} letter=${ns##*-}
  burst=$(star_default_burst "$rate") || { log "star: cannot read rate $rate"; return 2; }
  ip netns exec "$ns" tc qdisc replace dev "$TUN" root tbf rate "$rate" burst "$burst" latency 200ms || return 1
  ip netns exec "$STAR_SWITCH" tc qdisc replace dev "$TUN-$letter" root tbf rate "$rate" burst "$burst" latency 200ms || return 1
  log "star: $ns's link made slow: $rate each way (tbf burst $burst B)"
}
