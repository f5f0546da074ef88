#!/usr/bin/env bash
# Does reserving a core for communication change ddp_step_perf's answer? (issue 46, item 2)
# On a 2-core machine each of 2 ranks may run on both cores (--bind-to none): "shared" lets each
# rank's compute thread, communication thread and MPI progress share them as the scheduler likes;
# "reserved" (--comm-cores 1) binds both ranks' communication threads to the last core and their
# compute to the first. One BLAS thread a rank in both (-t 1), so only the placement differs.
# REPS pairs, the two sides alternating which goes first; every report kept, then the table.
#   results/ddp/comm-cores-2026-12-02/measure.sh BIN_DIR OUT_DIR [REPS]
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="$1"; out="$2"; reps="${3:-3}"
mkdir -p "$out/runs"
common=(--model resnet50 --compute-scale 0.01 --bucket-mb 1,25 --overlap on,off -t 1 -n 10 -w 2)
run() {  # run SIDE REP
  local extra=()
  [ "$1" = reserved ] && extra=(--comm-cores 1)
  echo "$(date -u +%T) $1 rep $2 load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/load.txt"
  "$here/../../../scripts/mpirun-local.sh" -np 2 --bind-to none "$bin/ddp_step_perf" "${common[@]}" "${extra[@]}" \
    -J "$out/runs/$1-$2.json" > "$out/runs/$1-$2.txt" 2>&1 || echo "$1 rep $2 failed: exit $?" >> "$out/load.txt"
}
for rep in $(seq 1 "$reps"); do
  if [ $((rep % 2)) = 1 ]; then run shared "$rep"; run reserved "$rep"; else run reserved "$rep"; run shared "$rep"; fi
done
echo "$(date -u +%T) done load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/load.txt"
"$here/table.sh" "$out" > "$out/table.md"
cat "$out/table.md"
