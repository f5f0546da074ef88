#!/usr/bin/env bash
# Runs one compute executable under real mpirun and checks exit code and report.
# usage: run_compute.sh BIN_DIR NP PROGRAM BENCHMARK EXPECTED_EXIT "CHECK ARGS" -- PROGRAM ARGS...
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../mpi/finalized_exit.sh"
bin_dir=$1 np=$2 program=$3 benchmark=$4 expected_exit=$5 check_args=$6
shift 6
[ "${1:-}" = "--" ] && shift
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$here/../../scripts/mpirun-local.sh" -np "$np" "$bin_dir/$program" "$@" -J "$work/report.json" >"$work/stdout" 2>"$work/stderr"
status=$?
if [ "$status" -ne "$expected_exit" ]; then
  echo "FAIL: $program -np $np $* exited $status, expected $expected_exit"
  tail -n 30 "$work/stdout" "$work/stderr"
  exit 1
fi
# shellcheck disable=SC2086
"$bin_dir/check_compute_report" "$work/report.json" --benchmark "$benchmark" --world-size "$np" $check_args || { cat "$work/stdout"; exit 1; }
cat "$work/stdout"
echo "ok: $program -np $np $* (exit $status)"
