#!/usr/bin/env bash
# Runs ddp_step_perf under real mpirun, then checks its exit code and its report (check_ddp_report).
# usage: run_ddp.sh BIN_DIR NP EXPECTED_EXIT "CHECK ARGS" -- DDP_STEP_PERF ARGS...
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../mpi/finalized_exit.sh"
bin_dir=$1 np=$2 expected_exit=$3 check_args=$4
shift 4
[ "${1:-}" = "--" ] && shift
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
report="$work/report.json"
timeout 280 "$here/../../scripts/mpirun-local.sh" -np "$np" "$bin_dir/ddp_step_perf" "$@" -J "$report" >"$work/stdout" 2>"$work/stderr"
status=$?
if [ "$status" -ne "$expected_exit" ]; then
  echo "FAIL: ddp_step_perf -np $np $* exited $status, expected $expected_exit"
  tail -n 20 "$work/stdout" "$work/stderr"
  exit 1
fi
# shellcheck disable=SC2086
"$bin_dir/check_ddp_report" "$report" --world-size "$np" $check_args || { cat "$work/stdout"; exit 1; }
echo "ok: ddp_step_perf -np $np $* (exit $status)"
