#!/usr/bin/env bash
# Runs line LINE of bad_command_lines.txt under mpirun: the exit code must be the expected one
# (2 bad usage, 1 machine failure) and stderr must hold exactly one "PROGRAM: error: " line,
# within the test's own time limit (a hang fails). usage: bad_command.sh BIN_DIR LINE
set -uo pipefail
bin_dir=$1 wanted_line=$2
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
line=$(grep -v '^#' "$here/bad_command_lines.txt" | grep -v '^$' | sed -n "${wanted_line}p")
[ -n "$line" ] || { echo "FAIL: no line $wanted_line"; exit 1; }
eval "set -- $line"
expected=$1 np=$2 program=$3
shift 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
timeout 60 "$here/../../scripts/mpirun-local.sh" -np "$np" "$bin_dir/$program" "$@" >"$work/stdout" 2>"$work/stderr"
status=$?
lines=$(grep -c "^$program: error: " "$work/stderr")
if [ "$status" -ne "$expected" ] || [ "$lines" -ne 1 ]; then
  echo "FAIL: $line: exit $status (want $expected), $lines error lines (want 1)"
  cat "$work/stderr"
  exit 1
fi
echo "ok: $line -> exit $status: $(grep "^$program: error: " "$work/stderr")"
