#!/usr/bin/env bash
# The committed runs of collbench explain (results/explain/): this machine's collectives at 2 ranks
# against its memory ceiling (membw_perf, measured first), and the simulated two-host cluster with
# its link shaped to two rates, each explained against the rate it was shaped to (an --expect file
# with the tbf rate as the inter-host line rate). Needs root for the cluster's network namespaces;
# run it on a quiet machine: the figures are committed.
#
# usage: scripts/validate/explain_runs.sh [--short] [--out DIR] [--rates 1gbit,250mbit] [--bin-dir DIR]
#   --short: tiny sizes and few iterations (a check that it works; its figures mean nothing)
#   DIR (default results/explain): DIR/local and DIR/cluster-<rate>, each reports/, explain.txt,
#   explain.json (and the cluster's shaped.peaks); a folder that exists is refused, never replaced.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="$root/results/explain" rates=1gbit,250mbit short=0 bin_dir="$root/build/bin"
while [ $# -gt 0 ]; do
  case $1 in
    --short) short=1; shift ;;
    --out) out=$2; shift 2 ;;
    --rates) rates=$2; shift 2 ;;
    --bin-dir) bin_dir=$2; shift 2 ;;
    *) echo "explain_runs.sh: unknown argument '$1' (see the usage at the top of $0)" >&2; exit 2 ;;
  esac
done
[ "$(id -u)" -eq 0 ] || { echo "explain_runs.sh: needs root (the simulated cluster's network namespaces)" >&2; exit 2; }
for program in collbench membw_perf all_reduce_perf all_gather_perf sendrecv_perf tun_forwarder; do
  [ -x "$bin_dir/$program" ] || { echo "explain_runs.sh: $bin_dir/$program is missing: build first (scripts/build.sh)" >&2; exit 2; }
done
fresh() {  # a folder this script makes; one that exists holds someone's results
  if [ -e "$1" ]; then echo "explain_runs.sh: $1 exists: move it away first (results are never replaced)" >&2; exit 2; fi
  mkdir -p "$1"
}
if [ "$short" -eq 1 ]; then
  local_sizes=(-b 8 -e 1M -f 8 -n 3 -w 1 -c 1) membw_size=64M membw_iterations=3 cluster_mode=(--short) cluster_sizes=()
else
  # Up to 32M between the hosts: at 250 Mbit/s a second an iteration, past the link's latency.
  local_sizes=(-b 8 -e 256M -f 4 -c 1) membw_size=256M membw_iterations=20 cluster_mode=() cluster_sizes=(-- -e 32M -n 10 -w 2)
fi
explain() {  # FOLDER [collbench explain flags]: explain.txt and explain.json beside its reports
  local folder=$1
  shift
  "$bin_dir/collbench" explain "$folder/reports" "$@" > "$folder/explain.txt"
  "$bin_dir/collbench" explain "$folder/reports" "$@" --format json > "$folder/explain.json"
  cat "$folder/explain.txt"
}

# This machine: the memory ceiling, then collectives at 2 ranks through shared memory.
fresh "$out/local/reports"
"$bin_dir/membw_perf" -b "$membw_size" -e "$membw_size" -k copy -n "$membw_iterations" -w 2 -J "$out/local/reports/membw.json"
for collective in all_reduce all_gather sendrecv; do
  "$root/scripts/mpirun-local.sh" -np 2 "$bin_dir/${collective}_perf" "${local_sizes[@]}" -J "$out/local/reports/$collective.json"
done
explain "$out/local"

# The simulated cluster: one rank on each of two hosts, the link between them shaped to each rate.
for rate in ${rates//,/ }; do
  folder="$out/cluster-$rate"
  fresh "$folder"
  printf 'link inter-host | %s | - | scripts/cluster/run.sh --rate %s: the tbf rate each direction of the link between the hosts is shaped to | the simulated cluster'"'"'s shaped link, one a host\n' \
    "$rate" "$rate" > "$folder/shaped.peaks"
  "$root/scripts/cluster/run.sh" "${cluster_mode[@]}" --links shaped --rate "$rate" --delay-ms 1 --loss 0 --benchmarks all_reduce,sendrecv \
    --bin-dir "$bin_dir" --out "$folder/reports" --timeout 900 "${cluster_sizes[@]}"
  explain "$folder" --expect "$folder/shaped.peaks"
done
echo "explain_runs.sh: explanations in $out"
