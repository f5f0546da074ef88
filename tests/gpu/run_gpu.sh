#!/usr/bin/env bash
# A GPU test: skips (exit 77, CTest SKIP_RETURN_CODE) with a message when no CUDA device is
# visible, otherwise runs the collective through NCCL on one rank and checks exit code and report.
# usage: run_gpu.sh BIN_DIR COLLECTIVE "CHECK_REPORT ARGS" -- PERF ARGS...
set -uo pipefail
bin_dir=$1 collective=$2 check_args=$3
shift 3
[ "${1:-}" = "--" ] && shift
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
probe=$(mktemp)
trap 'rm -f "$probe"' EXIT
"$bin_dir/${collective}_perf" --backend nccl -b 8 -e 8 -n 1 -w 0 -c 0 >/dev/null 2>"$probe"
if grep -q "no CUDA device is visible" "$probe"; then
  echo "SKIP: no CUDA device is visible here ($(head -1 "$probe"))"
  exit 77
fi
exec "$here/../mpi/run_perf.sh" "$bin_dir" 1 "$collective" 0 "$check_args" -- --backend nccl "$@"
