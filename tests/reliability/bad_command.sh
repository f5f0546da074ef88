#!/usr/bin/env bash
# Runs line LINE of bad_command_lines.txt under mpirun: the exit code must be the expected one
# (2 bad usage, 1 machine failure), on every rank, and stderr must hold exactly one "PROGRAM: error: " line,
# within the test's own time limit (a hang fails). usage: bad_command.sh BIN_DIR LINE
set -uo pipefail
bin_dir=$1 wanted_line=$2
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../mpi/each_rank_exit.sh"
line=$(grep -v '^#' "$here/bad_command_lines.txt" | grep -v '^$' | sed -n "${wanted_line}p")
[ -n "$line" ] || { echo "FAIL: no line $wanted_line"; exit 1; }
eval "set -- $line"
expected=$1 np=$2 program=$3
shift 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
problem=$(bad_input_problem "$work" "$np" "$expected" "$bin_dir/$program" "$@")
if [ -n "$problem" ]; then
  echo "FAIL: $line:" $problem
  cat "$work/stderr"
  exit 1
fi
echo "ok: $line -> exit $expected: $(grep "^$program: error: " "$work/stderr")"
