#!/usr/bin/env bash
# The run's warm-up (nccl-tests' before its first timed row), under real mpirun with 2 ranks: every
# row's timing names its -w iterations at the largest case, then at the smallest, once per run
# however many cycles (-N); -w 0 says there was none; pt2pt_perf, whose rows write their own
# timing text, says it too.
# usage: run_warmup.sh BIN_DIR
set -uo pipefail
bin_dir=$1
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mpirun_local="$here/../../scripts/mpirun-local.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# The rows of REPORT whose timing lacks TEXT (a fixed string), as a count.
rows_without() { jq --arg text "$2" '[.results[] | select(.timing | contains($text) | not)] | length' "$1"; }

"$mpirun_local" -np 2 "$bin_dir/all_reduce_perf" -b 1K -e 64K -f 8 -n 2 -w 2 -c 1 -N 2 -J "$work/w.json" >"$work/w.out" 2>&1 \
  || { cat "$work/w.out"; fail "all_reduce_perf -w 2 -N 2 exit $?"; }
# 1K, 8K, 64K, both placements, two cycles.
[ "$(jq '.results | length' "$work/w.json")" -eq 12 ] || fail "want 12 rows"
want="; warm-up once before the first row, untimed (as nccl-tests): 2 iterations at all_reduce at 65536 B float32 out-of-place (the largest case), then 2 iterations at all_reduce at 1024 B float32 out-of-place (the smallest); then the row's own warm-up"
[ "$(rows_without "$work/w.json" "$want")" -eq 0 ] || { jq -r '.results[0].timing' "$work/w.json"; fail "rows do not name the run's warm-up"; }
[ "$(jq '[.results[] | select(.wrong != 0)] | length' "$work/w.json")" -eq 0 ] || fail "rows have wrong elements"

"$mpirun_local" -np 2 "$bin_dir/all_reduce_perf" -b 1K -e 64K -f 8 -n 2 -w 0 -J "$work/cold.json" >"$work/cold.out" 2>&1 \
  || { cat "$work/cold.out"; fail "all_reduce_perf -w 0 exit $?"; }
[ "$(rows_without "$work/cold.json" "; no warm-up (-w 0): none before the first row, none in the row")" -eq 0 ] \
  || fail "-w 0 rows do not say there was no warm-up"
[ "$(jq '[.results[] | select(.timing | contains("as nccl-tests)"))] | length' "$work/cold.json")" -eq 0 ] \
  || fail "-w 0 rows claim a warm-up"

"$mpirun_local" -np 2 "$bin_dir/pt2pt_perf" --sizes 8,4096 -n 2 -w 1 -J "$work/p.json" >"$work/p.out" 2>&1 \
  || { cat "$work/p.out"; fail "pt2pt_perf exit $?"; }
[ "$(rows_without "$work/p.json" "(osu_latency); warm-up once before the first row, untimed (as nccl-tests): 1 iteration at pt2pt latency 0->1 at 4096 B (the largest case), then 1 iteration at pt2pt latency 0->1 at 8 B (the smallest)")" -eq 0 ] \
  || { jq -r '.results[0].timing' "$work/p.json"; fail "pt2pt rows do not name the run's warm-up"; }
echo "ok"
