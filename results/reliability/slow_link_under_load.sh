#!/usr/bin/env bash
# cluster.slow_link beside a busy CI (issue 64): RUNS runs of that test one after another, while the
# rest of the suite (ctest -j 8, every other test but the slurm and gpu labels) runs over and over
# beside them; prints each run's verdict, seconds and load average, then "N of RUNS passed".
# Root, on a machine that can host the simulated cluster; nobody else's work beside it.
#
#   results/reliability/slow_link_under_load.sh BUILD_DIR [RUNS] | tee results/reliability/<date>-slow-link-load/runs.txt
#
# Exit 0 when every run passed, 1 otherwise, 2 on bad usage.
set -uo pipefail
program=slow_link_under_load.sh
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 BUILD_DIR [RUNS]" >&2; exit 2; }
build=$1 runs=${2:-20}
[[ $runs =~ ^[0-9]{1,4}$ ]] && [ "$runs" -ge 1 ] || { echo "$program: error: RUNS must be a whole number >= 1 (got '$runs')" >&2; exit 2; }
[ -f "$build/CTestTestfile.cmake" ] || { echo "$program: error: $build is not a configured build folder" >&2; exit 2; }
work=$(mktemp -d)
# The load: the rest of the suite in a loop, in its own process group so that it ends with us.
setsid bash -c 'while :; do ctest --test-dir "$1" -j 8 -E "^cluster\.slow_link$" -LE "slurm|gpu" >/dev/null 2>&1; done' \
  load "$build" &
load=$!
cleanup() {
  kill -TERM -- "-$load" 2>/dev/null
  sleep 2
  kill -KILL -- "-$load" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
sleep 20  # the suite under way before the first run
passed=0
for ((run = 1; run <= runs; run++)); do
  start=$(date +%s.%N)
  if ctest --test-dir "$build" -R '^cluster\.slow_link$' --output-on-failure >"$work/run.log" 2>&1; then
    verdict=pass passed=$((passed + 1))
  else
    verdict=FAIL
  fi
  seconds=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
  note=$(grep -m1 -E '^(ok|FAIL):' "$work/run.log" | cut -c1-160)
  echo "run $run: $verdict, $seconds s, load $(cut -d' ' -f1-3 /proc/loadavg); $note"
  [ "$verdict" = pass ] || sed -n '/FAIL/,+3p' "$work/run.log" | head -8
done
echo "$passed of $runs passed ($(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, commit $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null))"
[ "$passed" -eq "$runs" ]
