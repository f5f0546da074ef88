#!/usr/bin/env bash
# A run that needs more memory than the host has must say how much, in one line, and exit 1
# before allocating: never std::bad_alloc. usage: memory_need.sh BIN_DIR NP PROGRAM ARGS...
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../mpi/finalized_exit.sh"
bin_dir=$1 np=$2 program=$3
shift 3
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
timeout 60 "$here/../../scripts/mpirun-local.sh" -np "$np" "$bin_dir/$program" "$@" >"$work/stdout" 2>"$work/stderr"
status=$?
lines=$(grep -c "^$program: error: .* needs\? [0-9.]* GiB of buffers per rank" "$work/stderr")
if [ "$status" -ne 1 ] || [ "$lines" -ne 1 ] || grep -q "bad_alloc" "$work/stderr" "$work/stdout"; then
  echo "FAIL: $program $*: exit $status (want 1), $lines lines naming the memory needed (want 1)"
  cat "$work/stderr"
  exit 1
fi
echo "ok: $(cat "$work/stderr")"
