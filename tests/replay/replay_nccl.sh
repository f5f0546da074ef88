#!/usr/bin/env bash
# replay_perf on NCCL (issue 61). no_gpu: --backend nccl where no CUDA device is visible
# (CUDA_VISIBLE_DEVICES emptied, so this holds on GPU machines too) is one line and exit 1 on every
# rank, after the trace was read and checked and before any library init. gpu: the committed
# one-rank trace on one GPU, and the 2-rank DDP trace on two, each report checked against its
# trace (run_replay.sh); skips (exit 77) with a message where too few GPUs are visible.
# usage: replay_nccl.sh no_gpu|gpu BIN_DIR DATA_DIR
set -uo pipefail
mode=$1 bin=$2 data=$3
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ddp=("$data/torch/ddp.rank0.kineto.json" "$data/torch/ddp.rank1.kineto.json")
if [ "$mode" = no_gpu ]; then
  CUDA_VISIBLE_DEVICES= timeout 60 "$here/../../scripts/mpirun-local.sh" -np 2 "$bin/replay_perf" --backend nccl \
    --trace "${ddp[0]}" --trace "${ddp[1]}" >"$work/stdout" 2>"$work/stderr"
  status=$?
  lines=$(grep -c "^replay_perf: error: " "$work/stderr")
  if [ "$status" -ne 1 ] || [ "$lines" -ne 1 ] || ! grep -q "no CUDA device is visible" "$work/stderr"; then
    echo "FAIL: exit $status (want 1), $lines error lines (want 1)"; cat "$work/stderr"; exit 1
  fi
  echo "ok: $(grep "^replay_perf: error: " "$work/stderr")"
  exit 0
fi
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
if [ "${gpus:-0}" -lt 1 ]; then
  echo "SKIP: replay_perf over NCCL needs a CUDA device; none visible"
  exit 77
fi
"$here/run_replay.sh" "$bin" mpi 1 nccl - -- "$data/gpu-verify.trace.json" || exit 1
if [ "$gpus" -lt 2 ]; then
  echo "SKIP (after the one-rank trace passed): the 2-rank DDP trace needs two CUDA devices; $gpus visible"
  exit 0
fi
exec "$here/run_replay.sh" "$bin" mpi 2 nccl "--ddp-expected $data/torch/ddp.expected.json" -- "${ddp[@]}"
