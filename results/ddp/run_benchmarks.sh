#!/usr/bin/env bash
# The ddp_step_perf figures of results/ddp/README.md. Run from the repository root after a build:
#   bash results/ddp/run_benchmarks.sh
# Each run is short (about a minute on a 2-core VM); -N 3 repeats every row, and collbench takes
# the median over the repeats. Reports go to results/ddp/reports/. Rank weights: run_rank_weights.sh.
set -euo pipefail
out=results/ddp/reports
mkdir -p "$out"
run() {  # NP NAME ARGS...
  local np=$1 name=$2
  shift 2
  echo "== -np $np $name: $*" >&2
  uptime >&2
  scripts/mpirun-local.sh -np "$np" build/bin/ddp_step_perf "$@" -J "$out/$name.json" --overwrite
}
# Scaling 1 -> 2 -> 4 ranks (weak: batch per rank fixed), linear-1024 and ResNet-50 at 1% compute.
for np in 1 2 4; do
  run "$np" "linear-1024-np$np" --model linear-1024 --batch 64 -n 200 -w 20 -N 3
  run "$np" "resnet50-np$np" --model resnet50 --compute-scale 0.01 --batch 32 -n 5 -w 1 -N 3
done
# Bucket sweep, overlap on/off and float32/float16 gradients at 2 ranks.
run 2 resnet50-buckets --model resnet50 --compute-scale 0.01 --batch 32 --bucket-mb 1,5,25,50,100 -n 5 -w 1 -N 3
run 2 resnet50-overlap-dtype --model resnet50 --compute-scale 0.01 --batch 32 --overlap on,off --grad-dtype float32,float16 -n 5 -w 1 -N 3
# Gradient accumulation (communication once per N micro-steps).
run 2 resnet50-accumulate --model resnet50 --compute-scale 0.01 --batch 32 --accumulate 1,4 -n 4 -w 1 -N 3
