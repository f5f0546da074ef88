#!/usr/bin/env bash
# Runs one *_perf executable under real mpirun and checks its exit code and report.
# usage: run_perf.sh BIN_DIR NP COLLECTIVE EXPECTED_EXIT "CHECK_REPORT ARGS" -- PERF ARGS...
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/finalized_exit.sh"
bin_dir=$1 np=$2 collective=$3 expected_exit=$4 check_args=$5
shift 5
[ "${1:-}" = "--" ] && shift
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
report="$work/report.json"
"$here/../../scripts/mpirun-local.sh" -np "$np" "$bin_dir/${collective}_perf" "$@" -J "$report" >"$work/stdout" 2>"$work/stderr"
status=$?
if [ "$status" -ne "$expected_exit" ]; then
  echo "FAIL: ${collective}_perf exited $status, expected $expected_exit"
  tail -n 20 "$work/stdout" "$work/stderr"
  # Which rows were wrong, from the report (a GPU run leaves nothing else behind).
  [ -s "$report" ] && python3 -c 'import json, sys
rows = [r for r in json.load(open(sys.argv[1])).get("results", []) if (r.get("wrong") or 0) > 0]
keys = ("dtype", "op", "placement", "bytes", "root", "wrong")
print(len(rows), "row(s) with wrong > 0; the first:", "; ".join(" ".join(str(r.get(k)) for k in keys) for r in rows[:12]))' "$report"
  exit 1
fi
if [ "$expected_exit" -eq 0 ] || [ "$expected_exit" -eq 3 ]; then
  grep -q "Out of bounds values" "$work/stdout" || { echo "FAIL: no table footer on stdout"; cat "$work/stdout"; exit 1; }
  # shellcheck disable=SC2086
  "$bin_dir/check_report" "$report" --benchmark "$collective" --world-size "$np" $check_args || exit 1
fi
echo "ok: ${collective}_perf -np $np $* (exit $status)"
