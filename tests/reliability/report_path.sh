#!/usr/bin/env bash
# A report path that cannot be written (-J into a missing folder, -J naming a folder) must end the
# run with exit 2 and one error line before any work: no measurement line on stdout.
# usage: report_path.sh BIN_DIR missing-folder|folder PROGRAM ARGS...
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../mpi/finalized_exit.sh"
bin_dir=$1 case_name=$2 program=$3
shift 3
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
case "$case_name" in
  missing-folder) path="$work/absent/report.json" ;;
  folder) path="$work" ;;
esac
timeout 60 "$here/../../scripts/mpirun-local.sh" -np 2 "$bin_dir/$program" "$@" -J "$path" >"$work/stdout" 2>"$work/stderr"
status=$?
lines=$(grep -c "^$program: error: " "$work/stderr")
measured=$(grep -cv '^#' "$work/stdout")
if [ "$status" -ne 2 ] || [ "$lines" -ne 1 ] || [ "$measured" -ne 0 ] || [ -s "$work/stdout" ]; then
  echo "FAIL: $program -J $case_name: exit $status (want 2), $lines error lines (want 1), stdout:"
  cat "$work/stdout" "$work/stderr"
  exit 1
fi
echo "ok: $(cat "$work/stderr")"
