#!/usr/bin/env bash
# Concurrent groups on the simulated cluster (docs/cluster.md, docs/groups.md): a slow link
# against a slow host, each through --groups host and --groups pairs, on a star of 4 hosts x 2
# ranks (8 ranks; ranks 2h and 2h+1 on host h). Root, iproute2, TUN (as scripts/cluster/run.sh).
#
#   slow link: host d's link runs at SLOW_RATE (default 250mbit, a quarter of the others' 1gbit:
#              a port trained down; star_slow_rate), and with --slow-ms its forwarder also holds
#              packets SLOW_MS each way (star_slow_host; the fault of the first measurement, where
#              4 ms cost a bandwidth-bound 4 MiB all-reduce only 8-16 %). --groups host (inside
#              each host) must find no SLOW group (exit 0); --groups pairs (rank r with r+4: hosts
#              a-c, a-c, b-d, b-d) must find the two pairs through d.
#   slow host: every link alike, rank 6 (host d) slowed by --inject-slowdown PCT (default 1000:
#              on 2 cores shared by 8 ranks, 300 left host d's group at 0.5-0.6 of the others'):
#              --groups host must name host d's group; the pairs find the one pair holding rank 6.
# Every run judges at --slow-group-factor FACTOR (default 0.5): on this simulation, groups doing the
# same work differ by up to a third within one run from CPU sharing alone (docs/groups.md), and the
# faults above leave their groups near a third of the others'.
# Each run's report, stdout and stderr go to OUT (default results/groups/local), with the commands
# in OUT/commands.txt and the load before each run in OUT/load.txt.
#
# usage: scripts/groups/slow_host_link.sh [--out DIR] [--slow-rate RATE] [--slow-ms MS] [--slowdown PCT] [--factor F] [-- EXTRA FLAGS]
#   e.g. scripts/groups/slow_host_link.sh --out results/groups -- -b 64K -e 4M -f 4 -n 20 -w 5
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source_dir="$(cd "$here/../.." && pwd)"
bin_dir=${COLLBENCH_BIN:-$source_dir/build/bin}
out=$source_dir/results/groups/local slow_rate=250mbit slow_ms=0 slowdown=1000 factor=0.5
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --slow-rate) slow_rate=$2; shift 2 ;;
    --slow-ms) slow_ms=$2; shift 2 ;;
    --slowdown) slowdown=$2; shift 2 ;;
    --factor) factor=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "slow_host_link.sh: error: unknown argument $1 (see the usage line)" >&2; exit 2 ;;
  esac
done
extra=("$@")
[ ${#extra[@]} -gt 0 ] || extra=(-b 64K -e 1M -f 4 -n 10 -w 2)
# shellcheck source=../cluster/lib.sh
source "$source_dir/scripts/cluster/lib.sh"
why=$(cluster_unavailable mpirun unshare timeout tc)
[ -z "$why" ] || { echo "slow_host_link.sh: error: simulated cluster: $why" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
export CB_CLUSTER_PREFIX="cbg$$"  # own namespace names: a person's run with the default prefix is left alone
MTU=9000  # lib.sh reads it (as tests/cluster/slow_link.sh)
work=$(mktemp -d)
trap 'star_down >/dev/null 2>&1; rm -rf "$work"' EXIT

# run NAME EXPECTED_EXIT ARGS...: one all_reduce_perf run on the star, recorded.
failures=0
run() {
  local name=$1 expected=$2 status=0
  shift 2
  local command=("$bin_dir/all_reduce_perf" "${extra[@]}" -T 120 --slow-group-factor "$factor" -J "$out/$name.json" --overwrite "$@")
  echo "$name:$(printf ' %q' "${command[@]}")" | sed "s|$source_dir/||g" >>"$out/commands.txt"  # quoted: each line runs as it reads
  echo "$name: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/load.txt"
  # shellcheck disable=SC2016  # expanded by the inner bash
  timeout -k 10 600 bash -c '. "$1/scripts/cluster/lib.sh"; star_names 4; shift; star_mpirun "$@"' groups "$source_dir" \
    8 2 shaped "$work" -- "${command[@]}" >"$out/$name.out" 2>"$out/$name.err" || status=$?
  if [ "$status" -eq "$expected" ]; then echo "ok: $name exited $status"; else echo "UNEXPECTED: $name exited $status (want $expected)"; failures=$((failures + 1)); fi
  grep -h "SLOW group" "$out/$name.err" || true
}

: >"$out/commands.txt"
: >"$out/load.txt"
star_up 4 >"$work/up.log" 2>&1 || { cat "$work/up.log"; exit 1; }
star_shape 1gbit 0.2 0 "$bin_dir/tun_forwarder" "$work" >>"$work/up.log" 2>&1 || { cat "$work/up.log"; exit 1; }
run slow_host.host 3 --groups host --inject-slowdown "$slowdown" --inject-slowdown-rank 6
run slow_host.pairs 3 --groups pairs --inject-slowdown "$slowdown" --inject-slowdown-rank 6
star_slow_rate 3 "$slow_rate" >>"$work/up.log" 2>&1 || { cat "$work/up.log"; exit 1; }
if [ "$slow_ms" != 0 ]; then
  star_slow_host 3 "$slow_ms" 0 "$bin_dir/tun_forwarder" "$work" >>"$work/up.log" 2>&1 || { cat "$work/up.log"; exit 1; }
fi
echo "# slow link: host d at $slow_rate each way (the others 1gbit), its forwarder holding packets $slow_ms ms more" >>"$out/commands.txt"
run slow_link.host 0 --groups host
run slow_link.pairs 3 --groups pairs
star_link_stats >"$out/link_stats.txt" 2>&1
# The files name this checkout's absolute path (argv, -J, the live table's report line): made
# relative to the repository, as results/ commits them.
find "$out" -maxdepth 1 -type f \( -name '*.json' -o -name '*.out' -o -name '*.err' \) -exec sed -i "s|$source_dir/||g" {} +
echo "reports in $out"
exit $((failures > 0))
