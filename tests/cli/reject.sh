#!/usr/bin/env bash
# A bad value must end PROGRAM with exit 2 and exactly one stderr line, "PROGRAM: error: ...",
# before any launcher or MPI is needed. usage: reject.sh BIN_DIR PROGRAM ARGS...
set -uo pipefail
bin_dir=$1 program=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
timeout 30 "$bin_dir/$program" "$@" >"$work/stdout" 2>"$work/stderr"
status=$?
lines=$(grep -c . "$work/stderr")
if [ "$status" -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -q "^$program: error: " "$work/stderr"; then
  echo "FAIL: $program $*: exit $status (want 2), $lines stderr lines (want 1 '$program: error: ...')"
  cat "$work/stderr"
  exit 1
fi
echo "ok: $program $* -> $(cat "$work/stderr")"
