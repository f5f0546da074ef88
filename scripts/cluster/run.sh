#!/usr/bin/env bash
# Runs collbench across a simulated cluster on this machine (root only). By default two hosts: two
# network namespaces joined by a plain veth link and a shaped link (tbf rate + tun_forwarder
# delay/loss). With --hosts 3|4 or --ranks-per-host 2+, a star: up to four hosts around a switch
# namespace, each with a shaped up- and downlink (lib.sh, star_up). Open MPI is launched across
# them through scripts/cluster/rsh-agent.sh, TCP over one link only. Everything it creates is
# removed on exit, also on failure or Ctrl-C.
#
# usage: scripts/cluster/run.sh [--short] [--links plain,shaped] [--benchmarks all_reduce,sendrecv]
#          [--hosts 2] [--ranks-per-host 1] [--out DIR] [--bin-dir DIR] [--rate 1gbit]
#          [--delay-ms 5] [--loss 0.001] [--burst BYTES] [--mtu 9000] [--timeout SECONDS]
#          [-- EXTRA BENCHMARK FLAGS]
# Reports: DIR/<link>-<benchmark>.json, output DIR/<link>-<benchmark>.log.
# CB_CLUSTER_PREFIX (default cb) names the namespaces <prefix>-host-a, -b (-c, -d, -switch).
# On the star, --delay-ms is host to host one way, --rate per host and direction, --loss per
# forwarder crossing (a packet crosses two), --burst the tbf burst (default max(2 MTU, 1 ms at the rate)).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# shellcheck source=scripts/cluster/lib.sh
. "$here/lib.sh"

short=0 links=plain,shaped benchmarks=all_reduce,sendrecv out="" bin_dir="$root/build/bin"
rate=1gbit delay_ms=5 loss=0.001 MTU=9000 run_timeout="" hosts=2 per_host=1 burst=""
extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --short) short=1; shift ;;
    --links) links=$2; shift 2 ;;
    --benchmarks) benchmarks=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --bin-dir) bin_dir=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --delay-ms) delay_ms=$2; shift 2 ;;
    --loss) loss=$2; shift 2 ;;
    --mtu) MTU=$2; shift 2 ;;
    --hosts) hosts=$2; shift 2 ;;
    --ranks-per-host) per_host=$2; shift 2 ;;
    --burst) burst=$2; shift 2 ;;
    --timeout) run_timeout=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "run.sh: unknown argument $1 (see the usage at the top of $0)" >&2; exit 2 ;;
  esac
done

[ "$(id -u)" -eq 0 ] || { echo "run.sh: needs root (network namespaces)" >&2; exit 2; }
case $hosts in 2|3|4) ;; *) echo "run.sh: --hosts takes 2, 3 or 4" >&2; exit 2 ;; esac
case $per_host in [1-9]|[1-9][0-9]) ;; *) echo "run.sh: --ranks-per-host takes 1 to 99" >&2; exit 2 ;; esac
star=0
if [ "$hosts" -ne 2 ] || [ "$per_host" -ne 1 ]; then star=1; fi
{ command -v ip >/dev/null && ip netns list >/dev/null 2>&1; } || { echo "run.sh: needs iproute2 with 'ip netns'" >&2; exit 2; }
for program in mpirun unshare timeout; do
  command -v "$program" >/dev/null || { echo "run.sh: needs $program" >&2; exit 2; }
done

if [ "$short" -eq 1 ]; then
  sizes=(-b 8 -e 64K -f 16 -n 3 -w 1 -c 1)
  run_timeout=${run_timeout:-60}
else
  sizes=(-b 8 -e 4M -f 4 -c 1)
  run_timeout=${run_timeout:-600}
fi
out=${out:-"$root/results/local/cluster-$(date +%Y%m%d-%H%M%S)"}
mkdir -p "$out"
work=$(mktemp -d)

FORWARDER_PID="" MPIRUN_PID=""
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  # timeout passes the signal on to mpirun, which ends its ranks and the remote orted.
  if [ -n "$MPIRUN_PID" ]; then
    kill -TERM "$MPIRUN_PID" 2>/dev/null || true
    timeout 10 tail --pid="$MPIRUN_PID" -f /dev/null 2>/dev/null || true
  fi
  if [ "$star" -eq 1 ]; then star_down; else cluster_down; fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [ "$star" -eq 1 ]; then
  star_up "$hosts"
else
  cluster_up
  # The hostfile and rankfile name the plain addresses; they are only names for the agent, the
  # links used for traffic are chosen by the *_if_include settings below.
  export CB_CLUSTER_HOSTS="$PLAIN_A=$NS_A $PLAIN_B=$NS_B"
  printf '%s slots=1\n%s slots=1\n' "$PLAIN_A" "$PLAIN_B" >"$work/hostfile"
  # One rank per host, on different cores: without a rankfile both "hosts" bind their rank to core 0.
  cores=$(nproc)
  printf 'rank 0=%s slot=0\nrank 1=%s slot=%d\n' "$PLAIN_A" "$PLAIN_B" $((1 % cores)) >"$work/rankfile"
fi

# Runs one benchmark across the hosts over one link. Args: LINK (plain|shaped) BENCHMARK.
run_one() {
  local link=$1 benchmark=$2 network tags
  if [ "$link" = plain ]; then
    network=$PLAIN_NET tags=(--tag link=plain)
  else
    network=$SHAPED_NET tags=(--tag link=shaped --tag link_rate="$rate" --tag link_delay_ms="$delay_ms" --tag link_loss="$loss")
  fi
  local report="$out/$link-$benchmark.json" logfile="$out/$link-$benchmark.log"
  rm -f "$report"
  local status=0
  if [ "$star" -eq 1 ]; then
    local np=$((hosts * per_host))
    log "$link link: ${benchmark}_perf, $np ranks, $per_host on each of ${STAR_HOSTS[*]}"
    # shellcheck disable=SC2016  # expanded by the inner bash
    timeout -k 10 "$run_timeout" bash -c '. "$1/lib.sh"; star_names "$2"; shift 2; star_mpirun "$@"' run.sh "$here" "$hosts" \
      "$np" "$per_host" "$link" "$work" -- "$bin_dir/${benchmark}_perf" "${sizes[@]}" -T 60 "${tags[@]}" \
      --tag hosts="$hosts" --tag ranks_per_host="$per_host" "${extra[@]}" -J "$report" >"$logfile" 2>&1 &
  else
    log "$link link: ${benchmark}_perf, 2 ranks on $NS_A and $NS_B"
    # shellcheck disable=SC2016  # expanded by the inner sh
    # mpirun itself runs on host a (as on a real cluster's first node) under that host's name.
    timeout -k 10 "$run_timeout" ip netns exec "$NS_A" unshare --uts -- \
      sh -c 'hostname "$1" && shift && exec "$@"' run.sh "$NS_A" \
      mpirun --allow-run-as-root -np 2 --hostfile "$work/hostfile" --rankfile "$work/rankfile" \
      --mca plm_rsh_agent "$here/rsh-agent.sh" \
      --mca btl tcp,self --mca btl_tcp_if_include "$network" --mca oob_tcp_if_include "$network" \
      "$bin_dir/${benchmark}_perf" "${sizes[@]}" -T 60 "${tags[@]}" "${extra[@]}" -J "$report" \
      >"$logfile" 2>&1 &
  fi
  # In the background so a signal to this script is handled now, not when mpirun ends.
  MPIRUN_PID=$!
  wait "$MPIRUN_PID" || status=$?
  MPIRUN_PID=
  cat "$logfile"
  if [ "$status" -ne 0 ]; then
    log "FAILED: ${benchmark}_perf over the $link link exited $status (124: timeout after ${run_timeout} s); output in $logfile"
    return 1
  fi
}

for link in ${links//,/ }; do
  case $link in
    plain) ;;
    shaped)
      if [ "$star" -eq 1 ]; then
        [ "${#STAR_FORWARDER_PIDS[@]}" -gt 0 ] || star_shape "$rate" "$delay_ms" "$loss" "$bin_dir/tun_forwarder" "$out" "$burst"
      else
        [ -n "$FORWARDER_PID" ] || cluster_shape "$rate" "$delay_ms" "$loss" "$bin_dir/tun_forwarder" "$out/tun_forwarder.log"
      fi ;;
    *) echo "run.sh: unknown link $link (plain, shaped)" >&2; exit 2 ;;
  esac
  for benchmark in ${benchmarks//,/ }; do
    run_one "$link" "$benchmark"
  done
  if [ "$link" = shaped ]; then
    if [ "$star" -eq 1 ]; then star_link_stats >"$out/shaped-link-stats.txt"; else cluster_link_stats >"$out/shaped-link-stats.txt"; fi
  fi
done
log "reports in $out"
