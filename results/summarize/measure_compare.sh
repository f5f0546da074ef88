#!/usr/bin/env bash
# Historical: measured the pooled per-iteration-sample method that compare used before run-level
# verdicts (2026-11-21). Single reports a side now give UNKNOWN; see measure_runs.sh for the method in use.
# A/A false-positive rate and slowdown detection rate of `collbench compare` on this machine.
# Usage: results/summarize/measure_compare.sh BIN_DIR PAIRS WORK_DIR
# A/A: the same all_reduce configuration run twice in a row (2 ranks, 64 KiB and 256 KiB, out- and
# in-place: 4 rows per pair, 40 samples each). Slowdown: the NEW run shares the 2 cores with two
# busy loops (`yes > /dev/null`), a competing process as a noisy neighbour would be.
set -u
bin="$1"; pairs="$2"; work="$3"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mkdir -p "$work"
run() { "$root/scripts/mpirun-local.sh" -np 2 "$bin/all_reduce_perf" --sizes 64K,256K -n 40 -w 5 -c 0 --samples -J "$1" --overwrite >/dev/null 2>&1; }
aa_fail=0; aa_rows_slower=0; aa_rows=0; det=0; det_rows=0; det_rows_slower=0
for i in $(seq 1 "$pairs"); do
  run "$work/a$i.json"; run "$work/b$i.json"
  "$bin/collbench" compare "$work/a$i.json" "$work/b$i.json" --format csv > "$work/aa$i.csv"; [ $? -eq 1 ] && aa_fail=$((aa_fail + 1))
  aa_rows=$((aa_rows + $(tail -n +2 "$work/aa$i.csv" | wc -l)))
  aa_rows_slower=$((aa_rows_slower + $(grep -c ',SLOWER$' "$work/aa$i.csv")))
  yes > /dev/null & y1=$!; yes > /dev/null & y2=$!
  run "$work/s$i.json"
  kill "$y1" "$y2"; wait "$y1" "$y2" 2>/dev/null
  "$bin/collbench" compare "$work/a$i.json" "$work/s$i.json" --format csv > "$work/det$i.csv"; [ $? -eq 1 ] && det=$((det + 1))
  det_rows=$((det_rows + $(tail -n +2 "$work/det$i.csv" | wc -l)))
  det_rows_slower=$((det_rows_slower + $(grep -c ',SLOWER$' "$work/det$i.csv")))
done
echo "A/A pairs: $pairs; pairs flagged SLOWER (exit 1): $aa_fail; rows SLOWER: $aa_rows_slower of $aa_rows"
echo "slowdown pairs: $pairs; detected (exit 1): $det; rows SLOWER: $det_rows_slower of $det_rows"
