#!/usr/bin/env bash
# With no CUDA device visible, --backend nccl must end every rank with exit 1 and exactly one
# line naming the problem and the backends that can run, within seconds, before any init.
# CUDA_VISIBLE_DEVICES is emptied so this holds on GPU machines too.
# usage: no_gpu.sh BIN_DIR NP HAVE_NCCL(0|1)
set -uo pipefail
bin_dir=$1 np=$2 have_nccl=$3
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
CUDA_VISIBLE_DEVICES= timeout 60 "$here/../../scripts/mpirun-local.sh" -np "$np" "$bin_dir/all_reduce_perf" \
  --backend nccl -b 8 -e 1K >"$work/stdout" 2>"$work/stderr"
status=$?
elapsed=$(( $(date +%s) - start ))
if [ "$have_nccl" = 1 ]; then want_status=1 pattern='no CUDA device is visible.*backends that can run here: mpi'
else want_status=2 pattern="backend 'nccl' is not available in this build"; fi
lines=$(grep -c "^all_reduce_perf: error: " "$work/stderr")
if [ "$status" -ne "$want_status" ] || [ "$lines" -ne 1 ] || ! grep -q "$pattern" "$work/stderr" || [ "$elapsed" -gt 20 ]; then
  echo "FAIL: exit $status (want $want_status), $lines error lines (want 1), ${elapsed}s (want <= 20), pattern '$pattern'"
  cat "$work/stderr"
  exit 1
fi
echo "ok: exit $status in ${elapsed}s: $(grep "^all_reduce_perf: error: " "$work/stderr")"
