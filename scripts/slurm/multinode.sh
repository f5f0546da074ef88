#!/usr/bin/env bash
# The committed multi-node run (issue 43, results/slurm/multinode/): on four simulated hosts
# (scripts/slurm/up.sh --nodes 4, shaped links), as root, on a quiet machine:
#   1. the suite as a batch job: sbatch -N 4 --ntasks-per-node 2 scripts/slurm/suite.sbatch;
#   2. srun -N 4 -n 4 pt2pt_perf --matrix (one task a node: the link matrix between the hosts);
#   3. the model's inputs: collbench sweep of all_reduce (out-of-place) at 2, 4 and 8 ranks, two a
#      node (1, 2 and 4 nodes), then collbench model fit on them;
#   4. measured: all_reduce at -N 4 --ntasks-per-node 4 (16 ranks); predicted: the same 16 ranks
#      (4 a node) and 8 nodes of 2 (16 ranks on 8 hosts, which this machine cannot build), with
#      the error of the first against the measurement per size (prediction / measured p10 - 1).
# `uptime` before each step goes to OUT/load.txt, every command to OUT/commands.txt. The Slurm is
# brought up with the given link options and taken down at the end, also on failure.
#
# usage: scripts/slurm/multinode.sh [--out results/slurm/multinode] [--bin-dir build/bin]
#          [--rate 1gbit] [--delay-ms 1] [--sizes 8,64,512,4K,32K,256K,1M,4M]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$root/results/slurm/multinode" bin_dir="$root/build/bin" rate=1gbit delay_ms=1 sizes=8,64,512,4K,32K,256K,1M,4M
while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || { echo "multinode.sh: $1 needs a value" >&2; exit 2; }
  case $1 in
    --out) out=$2 ;;
    --bin-dir) bin_dir=$2 ;;
    --rate) rate=$2 ;;
    --delay-ms) delay_ms=$2 ;;
    --sizes) sizes=$2 ;;
    *) echo "multinode.sh: unknown argument $1 (see the usage at the top of $0)" >&2; exit 2 ;;
  esac
  shift 2
done
command -v jq >/dev/null || { echo "multinode.sh: needs jq" >&2; exit 2; }
export CB_SLURM_STATE=${CB_SLURM_STATE:-/tmp/collbench-slurm-multinode}
mkdir -p "$out"
out=$(cd "$out" && pwd)
trap '"$here/down.sh" >/dev/null 2>&1 || true' EXIT
"$here/up.sh" --nodes 4 --rate "$rate" --delay-ms "$delay_ms" --bin-dir "$bin_dir" 2>&1 | tee "$out/up.txt"
# shellcheck source=/dev/null
. "$CB_SLURM_STATE/env.sh"
# Every node declares 4 CPUs on this machine's cores: ranks must yield when idle (docs/slurm.md).
export OMPI_MCA_mpi_yield_when_idle=1
cd "$out"
: >load.txt
: >commands.txt
step() {
  echo "== $1: $(uptime)" >>load.txt
  shift
  echo "$*" >>commands.txt
  "$@"
}
sweep_sizes=(--sizes "$sizes" -n 20 -w 5 -c 1 -T 600)

# 1. The suite over 4 nodes, 2 tasks each (the job's exit code: how many collectives failed).
step suite env OUT="$out/suite" BIN="$bin_dir" SUITE_ARGS="${sweep_sizes[*]}" \
  sbatch --wait -N 4 --ntasks-per-node 2 --output="$out/suite.txt" "$root/scripts/slurm/suite.sbatch" ||
  echo "suite: the job exited $? (the number of collectives that failed)" | tee -a load.txt
# 2. The link matrix (exit 3 when it flags a link: recorded, not fatal).
step matrix srun --mpi=pmix -K -N 4 -n 4 "$bin_dir/pt2pt_perf" --matrix --sizes 8,64K,1M -n 20 -w 2 -c 1 -T 600 \
  -J matrix.json >matrix.txt 2>&1 || echo "pt2pt_perf --matrix exited $? (3: a slow link flagged)" | tee -a matrix.txt
# 3. The fit's inputs and the fit.
step fit-sweep "$bin_dir/collbench" sweep --launcher 'srun --mpi=pmix -K --ntasks-per-node=2' --np 2,4,8 --out fit -- \
  "$bin_dir/all_reduce_perf" "${sweep_sizes[@]}" --placement out >fit-sweep.txt 2>&1
step fit "$bin_dir/collbench" model fit fit/*.json --out model.json >fit.txt 2>&1
# 4. Measured 16 ranks on 4 nodes; predicted for it and for 8 nodes of 2.
step measured srun --mpi=pmix -K -N 4 --ntasks-per-node 4 "$bin_dir/all_reduce_perf" "${sweep_sizes[@]}" --placement out \
  -J measured-4x4.json >measured-4x4.txt 2>&1
step predict-4x4 "$bin_dir/collbench" model predict model.json --np 16 --ranks-per-host 4 --sizes "$sizes" --format json >predict-4x4.json
step predict-8x2 "$bin_dir/collbench" model predict model.json --np 16 --ranks-per-host 2 --sizes "$sizes" --format markdown >predict-8x2.md
# The error per size: the prediction's time against the measured row's p10 (the figure the model fits).
jq -r --slurpfile predicted predict-4x4.json '
  ($predicted[0].tables[0].rows | map({key: (.bytes | tostring), value: .}) | from_entries) as $p
  | "| bytes | measured p10 (us) | predicted (us) | interval (us) | error |", "|---:|---:|---:|---|---:|",
    (.results[] | select(.placement == "out") | $p[(.bytes | tostring)] as $row | select($row != null)
     | "| \(.bytes) | \(.time_us.p10 * 100 | round / 100) | \($row.time_us * 100 | round / 100) | \($row.low_us | round)-\($row.high_us | round) | \(($row.time_us / .time_us.p10 - 1) * 1000 | round / 10) % |")' \
  measured-4x4.json >error-4x4.md
echo "== end: $(uptime)" >>load.txt
cat error-4x4.md
echo "multinode.sh: reports and tables in $out"
