#!/usr/bin/env bash
# A GPU test of pt2pt_perf over NCCL (ncclSend/ncclRecv in groups on the stream): two ranks, one
# GPU each (NCCL refuses two ranks on one GPU). Skips (exit 77) with a message where fewer than two
# CUDA devices are visible; otherwise run_pt2pt.sh checks the exit code and the report.
# usage: run_gpu_pt2pt.sh BIN_DIR "CHECK ARGS" -- PT2PT ARGS...
set -uo pipefail
bin_dir=$1 check=$2
shift 2
[ "${1:-}" = -- ] && shift
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
if [ "${gpus:-0}" -lt 2 ]; then
  echo "SKIP: pt2pt_perf over NCCL needs two CUDA devices (one per rank); ${gpus:-0} visible"
  exit 77
fi
exec "$here/run_pt2pt.sh" "$bin_dir" mpi 2 0 "$check" -- --backend nccl "$@"
