#!/usr/bin/env bash
# pt2pt_perf --backend nccl where no CUDA device is visible: every rank exits 1 with one line that
# names the problem, before any library init. CUDA_VISIBLE_DEVICES is emptied, so this holds on GPU
# machines too. usage: no_gpu.sh BIN_DIR
set -uo pipefail
bin_dir=$1
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
CUDA_VISIBLE_DEVICES= timeout 60 "$here/../../scripts/mpirun-local.sh" -np 2 "$bin_dir/pt2pt_perf" --backend nccl --sizes 8 \
  >"$work/stdout" 2>"$work/stderr"
status=$?
lines=$(grep -c "^pt2pt_perf: error: " "$work/stderr")
if [ "$status" -ne 1 ] || [ "$lines" -ne 1 ] || ! grep -q "no CUDA device is visible" "$work/stderr"; then
  echo "FAIL: exit $status (want 1), $lines error lines (want 1)"
  cat "$work/stderr"
  exit 1
fi
echo "ok: $(grep "^pt2pt_perf: error: " "$work/stderr")"
