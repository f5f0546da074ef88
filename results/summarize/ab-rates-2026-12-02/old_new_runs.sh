#!/usr/bin/env bash
# Two builds' all_reduce_perf, ci-perf's suite at 2 ranks, in ABBA turns (old, new, new, old, ...),
# one report each in OUT: does one build's run figure spread more than the other's?
#   results/summarize/ab-rates-2026-12-02/old_new_runs.sh OLD_BIN_DIR NEW_BIN_DIR OUT [PAIRS=20]
#   results/summarize/ab-rates-2026-12-02/old_new_spread.py OUT
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
old=$1 new=$2 out=$3 pairs=${4:-20}
rm -rf "$out"; mkdir -p "$out"
( while true; do echo "$(date -u +%H:%M:%S) $(cut -d' ' -f1-3 /proc/loadavg)"; sleep 30; done ) > "$out/load.txt" &
sampler=$!
trap 'kill $sampler' EXIT
for i in $(seq 1 "$pairs"); do
  if [ $((i % 2)) = 1 ]; then order="old new"; else order="new old"; fi
  for v in $order; do
    bin=$old; [ "$v" = new ] && bin=$new
    "$here/../../../scripts/mpirun-local.sh" -np 2 "$bin/all_reduce_perf" --sizes 64K,256K -n 500 -N 8 -w 5 -c 1 -T 120 \
      -J "$out/$v-$i.json" > /dev/null 2>&1
  done
done
