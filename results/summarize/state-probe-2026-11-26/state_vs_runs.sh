#!/usr/bin/env bash
# Is the "doubled" machine state a property of the cores or of the run? N times: probe.c in a
# fresh process (3 fresh 8 MiB buffers, the median of their cache-line round trips between CPUs 0
# and 1), one run of ci-perf's all_reduce suite (its in-place 64 KiB p10 over cycles), probe.c
# again (round trip, 256 KiB memcpy within one core, a compute spin). One line per run.
#   cc -O2 -pthread probe.c -o probe && ./state_vs_runs.sh BIN_DIR N > runs.txt
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="$1"; n="$2"; work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for i in $(seq 1 "$n"); do
  before=$("$here/probe" 3 | awk '{print $3}' | sort -n | sed -n 2p)
  "$here/../../../scripts/mpirun-local.sh" -np 2 "$bin/all_reduce_perf" --sizes 64K,256K -n 500 -N 8 -w 5 -c 1 -T 120 \
    -J "$work/r.json" --overwrite > /dev/null 2>&1
  after=$("$here/probe" 3 | awk '{print $3" "$5" "$7}' | sort -n | sed -n 2p)
  run=$(python3 -c "
import json, sys
rows = json.load(open(sys.argv[1]))['results']
v = sorted(r['time_us']['p10'] for r in rows if r['placement'] == 'in' and r['bytes'] == 65536)
print(v[len(v) // 10])" "$work/r.json")
  echo "$i $(date -u +%T) $(cut -d' ' -f1 /proc/loadavg) pp_before $before run_in64k_p10 $run pp_after_memcpy_spin $after"
done
