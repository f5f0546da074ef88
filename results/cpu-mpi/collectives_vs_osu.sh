#!/usr/bin/env bash
# The collective cells of issue 24 against OSU 7.4 (osu_allreduce, osu_bcast, osu_reduce,
# osu_allgather): np 2 under the same mpirun, float32 (OSU's -T mpi_float), out of place, root 0,
# the same iterations and warm-up for both (-n/-w and -i/-x), each tool's "average latency"
# (collbench's default -a 1: each rank's mean over iterations, then the mean over ranks, as OSU).
# Interleaved: the order alternates each repetition. Prints the median ratio collbench/OSU per cell
# with the min..max over repetitions.
#   results/cpu-mpi/collectives_vs_osu.sh BIN_DIR OSU_COLLECTIVE_DIR OUT [REPS] [ITERS] [WARMUP]
# OSU_COLLECTIVE_DIR: c/mpi/collective/blocking of an OSU build (fetched and built in a scratch
# folder, never committed). Sizes are collbench's (nccl-tests') bytes: all_gather's is the gathered
# total, so its OSU size is that / np (and 8 B becomes 32: 16 B a rank, nccl-tests' rounding); the
# others are the buffer, the same in both. SIZES (default "8 65536 1048576") chooses them.
set -euo pipefail
bin="$1"; osu="$2"; out="$3"; reps="${4:-7}"; iters="${5:-1000}"; warmup="${6:-200}"
np=2
mpirun=(mpirun --oversubscribe -np "$np")
[ "$(id -u)" -eq 0 ] && mpirun=(mpirun --allow-run-as-root --oversubscribe -np "$np")
read -r -a sizes <<< "${SIZES:-8 65536 1048576}"
mkdir -p "$out"
echo "rep,collective,bytes,tool,us" > "$out/raw.csv"
( while true; do echo "$(date -u +%H:%M:%S) $(cut -d' ' -f1-3 /proc/loadavg)"; sleep 30; done ) > "$out/load.txt" &
sampler=$!
trap 'kill $sampler' EXIT
osu_name() { case "$1" in all_reduce) echo osu_allreduce ;; broadcast) echo osu_bcast ;; reduce) echo osu_reduce ;; all_gather) echo osu_allgather ;; esac; }
run_osu() {  # run_osu REP COLLECTIVE
  local divide=1 lo hi
  [ "$2" = all_gather ] && divide=$np
  lo=4; hi=$(( ${sizes[-1]} / divide ))
  "${mpirun[@]}" "$osu/$(osu_name "$2")" -T mpi_float -m "$lo:$hi" -i "$iters" -x "$warmup" > "$out/osu-$2-$1.txt"
  # Every size OSU printed, in collbench's bytes; the table keeps the sizes both tools have.
  awk -v rep="$1" -v c="$2" -v times="$divide" '$1 ~ /^[0-9]+$/ && NF >= 2 { print rep "," c "," $1 * times ",osu," $2 }' \
    "$out/osu-$2-$1.txt" >> "$out/raw.csv"
}
run_collbench() {  # run_collbench REP COLLECTIVE
  local list
  list=$(IFS=,; echo "${sizes[*]}")
  "${mpirun[@]}" "$bin/$2_perf" --sizes "$list" -d float32 --placement out -n "$iters" -w "$warmup" -c 0 \
    -J "$out/collbench-$2-$1.json" > "$out/collbench-$2-$1.txt"
  python3 - "$out/collbench-$2-$1.json" "$1" "$2" >> "$out/raw.csv" <<'PY'
import json, sys
rep, collective = sys.argv[2], sys.argv[3]
for row in json.load(open(sys.argv[1]))["results"]:
    print(f"{rep},{collective},{row['bytes']},collbench,{row['time_us']['mean']}")
PY
}
for rep in $(seq 1 "$reps"); do
  for collective in all_reduce broadcast reduce all_gather; do
    if [ $((rep % 2)) -eq 1 ]; then run_osu "$rep" "$collective"; run_collbench "$rep" "$collective"
    else run_collbench "$rep" "$collective"; run_osu "$rep" "$collective"; fi
  done
done
python3 - "$out/raw.csv" "${sizes[@]}" <<'PY'
import csv, statistics, sys
values = {}
for r in csv.DictReader(open(sys.argv[1])):
    values.setdefault((r["collective"], int(r["bytes"]), r["rep"]), {})[r["tool"]] = float(r["us"])
print("| collective | bytes (collbench) | OSU, median (us) | collbench, median (us) | collbench/OSU, median of reps | min..max |")
print("|---|---|---|---|---|---|")
for collective in ("all_reduce", "broadcast", "reduce", "all_gather"):
    for size in sorted({b for (c, b, _), v in values.items() if c == collective and "collbench" in v}):
        reps = [v for (c, b, _), v in values.items() if c == collective and b == size and len(v) == 2]
        if not reps: continue
        ratios = [v["collbench"] / v["osu"] for v in reps]
        print(f"| {collective} | {size} | {statistics.median(v['osu'] for v in reps):.3f} | "
              f"{statistics.median(v['collbench'] for v in reps):.3f} | {statistics.median(ratios):.3f} | "
              f"{min(ratios):.3f}..{max(ratios):.3f} |")
PY
echo "load (1-minute average, every 30 s): $(awk '{print $2}' "$out/load.txt" | sort -n | sed -n '1p;$p' | paste -sd-)"
