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
    [ -e "/run/netns/$ns" ] || continue
    kill_namespace_pids "$ns"
    ip -n "$ns" link del "$TUN" 2>/dev/null || true
    ip -n "$ns" link del "$VETH" 2>/dev/null || true  # takes its peer with it
    if ip netns del "$ns" 2>/dev/null; then log "removed $ns"; else log "warning: could not delete namespace $ns"; fi
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
  ip netns add "$NS_A"
  ip netns add "$NS_B"
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
