#!/usr/bin/env bash
# The documented CI flow (collbench ab, interleaved, paired) against real injected slowdowns:
# A/A, A vs A --inject-slowdown 10 and A vs A --inject-slowdown 5, taken in turn so that the
# machine's load falls on every kind alike. Usage:
#   results/summarize/measure_inject.sh BIN_DIR PAIRS PAIRS_AT_5 WORK_DIR RUNS MAX_RUNS [BENCH ARGS...]
# Default bench args: ci-perf's suite for all_reduce (--sizes 64K,256K -n 500 -N 8 -w 5 -c 1 -T 120).
# Writes WORK/results.txt (one line per comparison: kind, index, exit, runs a side, wall s of every
# attempt together, counts, attempts)
# and WORK/load.txt (the 1-minute load average every 30 s); keeps every ab folder for re-judging.
set -u
bin="$1"; pairs="$2"; pairs5="$3"; work="$4"; runs="$5"; max_runs="$6"
shift 6
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(--sizes 64K,256K -n 500 -N 8 -w 5 -c 1 -T 120)
mkdir -p "$work"
( while true; do echo "$(date -u +%H:%M:%S) $(cut -d' ' -f1 /proc/loadavg)"; sleep 30; done ) > "$work/load.txt" &
sampler=$!
trap 'kill $sampler' EXIT
echo "kind index exit runs_a_side wall_s same faster slower unknown attempts" > "$work/results.txt"
one() {  # one KIND INDEX EXTRA_ARGS_FOR_B...
  local kind=$1 index=$2
  shift 2
  local dir="$work/$kind$index" attempt code start
  rm -rf "$dir"
  start=$(date +%s.%N)
  # A run killed from outside (other sessions' tests send SIGTERM on this machine) ends ab with a
  # runtime error; the same command again resumes from the complete run pairs, up to 3 times.
  for attempt in 1 2 3; do
    "$bin/collbench" ab --np 2 --runs "$runs" --max-runs "$max_runs" --out "$dir" --format json -- \
      "$bin/all_reduce_perf" "${args[@]}" ::: "$bin/all_reduce_perf" "${args[@]}" "$@" > "$dir.json" 2>> "$dir.log"
    code=$?
    python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$dir.json" 2>/dev/null && break
  done
  python3 -c "
import json,sys
try:
    d=json.load(open(sys.argv[1])); c=d['counts']
    print(sys.argv[2], sys.argv[3], sys.argv[4], d['runs_a_side'], sys.argv[5], c['same'], c['faster'], c['slower'], c['unknown'], sys.argv[6])
except Exception:
    print(sys.argv[2], sys.argv[3], sys.argv[4], 'failed -', sys.argv[5], '- - - -', sys.argv[6])" \
    "$dir.json" "$kind" "$index" "$code" "$(echo "$(date +%s.%N) - $start" | bc | cut -c1-5)" "$attempt" >> "$work/results.txt"
}
for i in $(seq 1 "$pairs"); do
  one aa "$i"
  one s10_ "$i" --inject-slowdown 10
  [ "$i" -le "$pairs5" ] && one s5_ "$i" --inject-slowdown 5
done
cat "$work/results.txt"
