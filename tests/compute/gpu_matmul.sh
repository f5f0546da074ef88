#!/usr/bin/env bash
# GPU GEMM and STREAM on a visible GPU; skipped (exit 77) when none is visible.
set -uo pipefail
bin_dir=$1
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then echo "SKIP: no GPU visible"; exit 77; fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$here/run_compute.sh" "$bin_dir" 1 matmul_perf matmul 0 "--wrong zero" -- --device gpu -d float32,tf32,float16,bfloat16,fp8 --sizes 1024,4096 -n 5 || exit 1
"$here/run_compute.sh" "$bin_dir" 1 matmul_perf matmul 3 "--wrong positive" -- --device gpu -d bfloat16 --sizes 512 -n 2 --inject-corrupt-output || exit 1
"$here/run_compute.sh" "$bin_dir" 1 membw_perf membw 0 "--wrong zero" -- --device gpu --sizes 64M -n 5 || exit 1
