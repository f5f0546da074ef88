#!/usr/bin/env bash
# Runs one *_perf executable with --backend gloo under real mpirun, then checks its exit code,
# the report contract (check_report) and lines the report must hold (a row's algorithm, a skipped
# row's reason, the recorded interface).
# usage: run_gloo.sh BIN_DIR NP COLLECTIVE EXPECTED_EXIT "CHECK_REPORT ARGS" "REQUIRED|LINES" -- PERF ARGS...
# REQUIRED is '|'-separated fixed strings that must each appear in the JSON report.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../mpi/finalized_exit.sh"
bin_dir=$1 np=$2 collective=$3 expected_exit=$4 check_args=$5 required=$6
shift 6
[ "${1:-}" = "--" ] && shift
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
report="$work/report.json"
timeout 500 "$here/../../scripts/mpirun-local.sh" -np "$np" "$bin_dir/${collective}_perf" --backend gloo "$@" -J "$report" \
  >"$work/stdout" 2>"$work/stderr"
status=$?
if [ "$status" -ne "$expected_exit" ]; then
  echo "FAIL: ${collective}_perf --backend gloo exited $status, expected $expected_exit"
  tail -n 20 "$work/stdout" "$work/stderr"
  exit 1
fi
# shellcheck disable=SC2086
"$bin_dir/check_report" "$report" --benchmark "$collective" --world-size "$np" $check_args || exit 1
grep -q '"backend": "gloo"' "$report" || { echo "FAIL: rows are not from the gloo backend"; exit 1; }
IFS='|' read -r -a lines <<<"$required"
for line in "${lines[@]}"; do
  [ -z "$line" ] && continue
  grep -qF -- "$line" "$report" || { echo "FAIL: the report lacks: $line"; exit 1; }
done
echo "ok: ${collective}_perf --backend gloo -np $np $* (exit $status)"
