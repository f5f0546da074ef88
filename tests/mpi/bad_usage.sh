#!/usr/bin/env bash
# A bad command line must end every rank with exit 2 and exactly one line from collbench on
# stderr, quickly, without leaving mpirun hanging. usage: bad_usage.sh BIN_DIR NP PERF ARGS...
set -uo pipefail
bin_dir=$1 np=$2 program=$3
shift 3
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/each_rank_exit.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
launch_recording_exits "$work" "$np" "$bin_dir/$program" "$@"
elapsed=$(( $(date +%s) - start ))
lines=$(grep -c "^$program: error: " "$work/stderr")
ranks=$(every_rank_exited "$work" "$np" 2)
if [ "$launch_status" -ne 2 ] || [ "$lines" -ne 1 ] || [ -n "$ranks" ]; then
  echo "FAIL: $program $* under -np $np: exit $launch_status (want 2), $lines error lines (want 1) ${ranks}"
  cat "$work/stderr"
  exit 1
fi
echo "ok: exit 2 in ${elapsed}s: $(grep "^$program: error: " "$work/stderr")"
