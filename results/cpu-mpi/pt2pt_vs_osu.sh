#!/usr/bin/env bash
# pt2pt_perf against OSU's osu_latency, osu_bw, osu_bibw and osu_mbw_mr (issue 24): np 2 under the same mpirun,
# sizes 8 B, 64 KiB and 1 MiB, both with their default (OSU's) iteration counts, interleaved (the
# order alternates each repetition), REPS repetitions; writes OUT/raw.csv and prints the median
# ratio collbench/OSU per mode and size with the min..max of the per-repetition ratios.
#   results/cpu-mpi/pt2pt_vs_osu.sh BIN_DIR OSU_PT2PT_DIR OUT [REPS]
# OSU_PT2PT_DIR: c/mpi/pt2pt/standard of an OSU micro-benchmarks build (fetched and built in a
# scratch folder, never committed). Latency compares us (OSU's "Latency (us)" with the row's
# latency_us); bw, bibw and mbw_mr MB/s (OSU's, 1e6 B/s) with the row's gbps x 1000 (mbw_mr at np 2:
# one pair, OSU's window 64). MODES (default "latency bw bibw mbw_mr") chooses the modes.
set -euo pipefail
bin="$1"; osu="$2"; out="$3"; reps="${4:-5}"
mpirun=(mpirun --oversubscribe -np 2)
[ "$(id -u)" -eq 0 ] && mpirun=(mpirun --allow-run-as-root --oversubscribe -np 2)
mkdir -p "$out"
echo "rep,mode,bytes,tool,value" > "$out/raw.csv"
( while true; do echo "$(date -u +%H:%M:%S) $(cut -d' ' -f1-3 /proc/loadavg)"; sleep 30; done ) > "$out/load.txt" &
sampler=$!
trap 'kill $sampler' EXIT
run_osu() {  # run_osu REP MODE
  "${mpirun[@]}" "$osu/osu_$2" -m 8:1048576 > "$out/osu-$2-$1.txt"
  awk -v rep="$1" -v mode="$2" '$1 == 8 || $1 == 65536 || $1 == 1048576 { print rep "," mode "," $1 ",osu," $2 }' \
    "$out/osu-$2-$1.txt" >> "$out/raw.csv"
}
run_collbench() {  # run_collbench REP MODE
  "${mpirun[@]}" "$bin/pt2pt_perf" --mode "$2" --sizes 8,64K,1M -c 0 -J "$out/collbench-$2-$1.json" > "$out/collbench-$2-$1.txt"
  python3 - "$out/collbench-$2-$1.json" "$1" "$2" >> "$out/raw.csv" <<'PY'
import json, sys
rep, mode = sys.argv[2], sys.argv[3]
for row in json.load(open(sys.argv[1]))["results"]:
    value = row["latency_us"] if mode == "latency" else row["gbps"] * 1000
    print(f"{rep},{mode},{row['bytes']},collbench,{value}")
PY
}
for rep in $(seq 1 "$reps"); do
  for mode in ${MODES:-latency bw bibw mbw_mr}; do
    if [ $((rep % 2)) -eq 1 ]; then run_osu "$rep" "$mode"; run_collbench "$rep" "$mode"
    else run_collbench "$rep" "$mode"; run_osu "$rep" "$mode"; fi
  done
done
python3 - "$out/raw.csv" <<'PY'
import csv, statistics, sys
values = {}
for r in csv.DictReader(open(sys.argv[1])):
    values.setdefault((r["mode"], int(r["bytes"]), r["rep"]), {})[r["tool"]] = float(r["value"])
print("| mode | bytes | OSU (median) | collbench (median) | collbench/OSU, median of reps | min..max |")
print("|---|---|---|---|---|---|")
for mode in ("latency", "bw", "bibw", "mbw_mr"):
    for size in (8, 65536, 1048576):
        reps = [v for (m, b, _), v in values.items() if m == mode and b == size and len(v) == 2]
        if not reps: continue
        ratios = [v["collbench"] / v["osu"] for v in reps]
        unit = "us" if mode == "latency" else "MB/s"
        print(f"| {mode} | {size} | {statistics.median(v['osu'] for v in reps):.2f} {unit} | "
              f"{statistics.median(v['collbench'] for v in reps):.2f} {unit} | {statistics.median(ratios):.3f} | "
              f"{min(ratios):.3f}..{max(ratios):.3f} |")
PY
echo "load (1-minute average, every 30 s): $(awk '{print $2}' "$out/load.txt" | sort -n | sed -n '1p;$p' | paste -sd-)"
