#!/usr/bin/env bash
# replay_perf on real processes: NP ranks launched by mpirun (LAUNCH mpi) or without MPI through the
# env bootstrap (LAUNCH env: RANK/WORLD_SIZE, scripts/launch-local.sh), on BACKEND, replaying the
# trace files; the report is then checked against the trace (check_replay_report.py).
# usage: run_replay.sh BIN_DIR LAUNCH NP BACKEND "CHECK ARGS"|- -- TRACE_FILE... [-- REPLAY ARGS]
set -uo pipefail
bin=$1 launch=$2 np=$3 backend=$4 check_args=$5
[ "$check_args" = - ] && check_args=""  # none (CMake drops an empty argument)
shift 5
[ "${1:-}" = "--" ] && shift
files=() extra=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do files+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift && extra=("$@")
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
scripts="$here/../../scripts"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
traces=()
for file in "${files[@]}"; do traces+=(--trace "$file"); done
cycles=2
"$bin/replay_read_trace" --calls "${files[@]}" >"$work/listing" || { echo "FAIL: replay_read_trace refused the trace"; exit 1; }
launcher=(env)
[ "$launch" = env ] && launcher=(env COLLBENCH_LOCAL_LAUNCHER=env)
"${launcher[@]}" timeout 120 "$scripts/mpirun-local.sh" -np "$np" "$bin/replay_perf" --backend "$backend" "${traces[@]}" \
  -N "$cycles" -n 2 -w 1 -c 1 -T 60 -J "$work/replay.json" "${extra[@]}" >"$work/out" 2>"$work/err"
status=$?
if [ $status -ne 0 ]; then
  echo "FAIL: replay_perf exited $status"; cat "$work/out" "$work/err"; exit 1
fi
cat "$work/out"
# shellcheck disable=SC2086  # the check's arguments are words
python3 "$here/check_replay_report.py" "$work/replay.json" "$work/listing" --backend "$backend" --cycles "$cycles" $check_args
