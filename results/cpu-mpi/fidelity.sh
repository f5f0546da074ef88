#!/usr/bin/env bash
# collbench's default estimator (-a 1, mean over ranks) against a bare OSU-style loop
# (bench/baselines/bare_collective.cpp), 2 ranks, float32, out of place, at 8 B, 64 KiB and 1 MiB,
# for all_reduce, broadcast, all_gather and alltoall. Five repeats, each running the bare loop and
# the *_perf program back to back for every collective, so drift on the machine hits both alike;
# the table is the median over repeats of the per-repeat ratio collbench / bare.
# usage: results/cpu-mpi/fidelity.sh BUILD_BIN_DIR OUT_DIR [REPEATS] [ITERATIONS]
#   SUMMARY_ONLY=1 re-prints the table from the runs already in OUT_DIR.
set -euo pipefail
bin=$1 out=$2 repeats=${3:-5} iterations=${4:-5000}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mpirun_local="$here/../../scripts/mpirun-local.sh"
mkdir -p "$out"
collectives="all_reduce broadcast all_gather alltoall"
for repeat in $( [ "${SUMMARY_ONLY:-0}" = 1 ] || seq 1 "$repeats"); do
  for collective in $collectives; do
    "$mpirun_local" -np 2 "$bin/bare_collective" "$collective" 8 65536 1048576 -n "$iterations" -w 500 \
      > "$out/bare-$collective-$repeat.txt"
    "$mpirun_local" -np 2 "$bin/${collective}_perf" --sizes 8,64K,1M -n "$iterations" -w 500 -c 0 --placement out \
      -J "$out/collbench-$collective-$repeat.json" --overwrite > /dev/null
  done
done
python3 - "$out" "$repeats" $collectives <<'PY'
import json, statistics, sys
out, repeats, collectives = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
print("| collective | size | bare, median (µs) | collbench -a 1, median (µs) | ratio, median of %d paired runs (min–max) | ratio of the fastest runs |" % repeats)
print("|---|---|---|---|---|---|")
for collective in collectives:
    for size, label in ((8, "8 B"), (65536, "64 KiB"), (1048576, "1 MiB")):
        bare, ours, ratios = [], [], []
        for r in range(1, repeats + 1):
            lines = [l.split() for l in open(f"{out}/bare-{collective}-{r}.txt") if not l.startswith("#")]
            b = next(float(l[1]) for l in lines if int(l[0]) == size)
            row = next(x for x in json.load(open(f"{out}/collbench-{collective}-{r}.json"))["results"] if x["requested_bytes"] == size)
            c = row["time_us"]["mean"]
            bare.append(b); ours.append(c); ratios.append(c / b)
        print(f"| {collective} | {label} | {statistics.median(bare):.3f} | {statistics.median(ours):.3f} | "
              f"**{statistics.median(ratios):.3f}** ({min(ratios):.3f}–{max(ratios):.3f}) | {min(ours) / min(bare):.3f} |")
PY
