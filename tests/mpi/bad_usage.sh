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
problem=$(bad_input_problem "$work" "$np" 2 "$bin_dir/$program" "$@")
elapsed=$(( $(date +%s) - start ))
if [ -n "$problem" ]; then
  echo "FAIL: $program $* under -np $np:" $problem
  cat "$work/stderr"
  exit 1
fi
echo "ok: exit 2 in ${elapsed}s: $(grep "^$program: error: " "$work/stderr")"
