#!/usr/bin/env bash
# ddp_step_perf with one slow rank, for results/ddp/README.md. Run from the repository root:
#   bash results/ddp/run_rank_weights.sh
set -euo pipefail
out=results/ddp/reports
mkdir -p "$out"
# Rank weights against a real slow rank: a CPU-bound loop on rank 1's core (the envcheck test's
# competitor), envcheck's weights, then the step with and without them (ResNet-50, 5% compute).
slow=(scripts/mpirun-local.sh -np 2 --bind-to core --map-by core -x SLOW_RANK=1 tests/compute/competitor_on_rank.sh)
"${slow[@]}" build/bin/envcheck --threads 1 --repeats 7 --probe-ms 60 --probe-n 192 --probe-bytes 8M \
  -J "$out/envcheck-slow-rank1.json" --overwrite || true  # exit 3: a slow rank was found
weights=$(python3 -c 'import json,sys; print(",".join("%.3f" % w for w in json.load(open(sys.argv[1]))["summary"]["weights"]))' \
  "$out/envcheck-slow-rank1.json")
echo "envcheck weights: $weights" >&2
step=(--model resnet50 --compute-scale 0.05 --batch 32 --overlap off -n 5 -w 1)
scripts/mpirun-local.sh -np 2 --bind-to core --map-by core build/bin/ddp_step_perf "${step[@]}" -J "$out/weights-no-load.json" --overwrite
"${slow[@]}" build/bin/ddp_step_perf "${step[@]}" -J "$out/weights-slow-equal.json" --overwrite
"${slow[@]}" build/bin/ddp_step_perf "${step[@]}" --rank-weights "$weights" -J "$out/weights-slow-weighted.json" --overwrite
