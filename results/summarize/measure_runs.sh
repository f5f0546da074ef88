#!/usr/bin/env bash
# Run-level compare on this machine: A/A false positives, synthetic-slowdown detection, and runs and
# wall time per verdict with early stopping. Usage:
#   results/summarize/measure_runs.sh BIN_DIR PAIRS EARLY_STOP_PAIRS WORK_DIR
# A/A: `collbench ab --np 2 --runs 3 --max-runs 3` with the same all_reduce_perf on both sides
# (8 B .. 2 MiB by 8x, out- and in-place: 14 rows, -n 20, per-iteration samples). Each pair's
# folders are judged paired (as ab does) and unpaired (`compare A B`, as against a stored baseline).
# Detection: copies of B's reports with every time and sample scaled by 1.05 and 1.10 (synthetic:
# --inject-slowdown is not in the programs yet), compared with A.
# Early stopping: `--runs 3 --max-runs 8`, how many runs a side until no row is UNKNOWN.
set -u
bin="$1"; pairs="$2"; early="$3"; work="$4"
mkdir -p "$work"
bench=("$bin/all_reduce_perf" -b 8 -e 4M -f 8 -n 20 -w 3 -c 0 --samples -T 120)
verdicts() { python3 -c "
import csv,sys,collections
rows=list(csv.DictReader(open(sys.argv[1])))
c=collections.Counter(r['verdict'] for r in rows)
print(len(rows), c['SAME'], c['FASTER'], c['SLOWER'], c['UNKNOWN'])" "$1"; }
scale() { python3 - "$1" "$2" "$3" <<'PY'
import json, os, sys
source, target, factor = sys.argv[1], sys.argv[2], float(sys.argv[3])
os.makedirs(target, exist_ok=True)
for name in sorted(os.listdir(source)):
    if not name.endswith(".json"):
        continue
    report = json.load(open(os.path.join(source, name)))
    for row in report["results"]:
        row["time_us"] = {k: v * factor for k, v in row["time_us"].items()}
        row["samples_us"] = [v * factor for v in row.get("samples_us", [])]
        row["algbw_gbps"] /= factor
        if row.get("busbw_gbps") is not None:
            row["busbw_gbps"] /= factor
    json.dump(report, open(os.path.join(target, name), "w"))
PY
}
echo "pair mode rows same faster slower unknown exit" > "$work/aa.txt"
echo "pair factor mode rows same faster slower unknown exit" > "$work/detect.txt"
for i in $(seq 1 "$pairs"); do
  dir="$work/aa$i"
  rm -rf "$dir"
  start=$(date +%s.%N)
  "$bin/collbench" ab --np 2 --runs 3 --max-runs 3 --out "$dir" --format csv -- "${bench[@]}" ::: "${bench[@]}" > "$dir.paired.csv" 2> "$dir.log"
  code=$?
  echo "$i paired $(verdicts "$dir.paired.csv") $code $(echo "$(date +%s.%N) - $start" | bc)" >> "$work/aa.txt"
  "$bin/collbench" compare "$dir/A" "$dir/B" --format csv > "$dir.unpaired.csv"
  echo "$i unpaired $(verdicts "$dir.unpaired.csv") $?" >> "$work/aa.txt"
  for factor in 1.05 1.10; do
    # Same file names as A, so the scaled copies pair with A's runs like B's did.
    scale "$dir/B" "$dir/B_x$factor" "$factor"
    "$bin/collbench" compare "$dir/A" "$dir/B_x$factor" --paired --format csv > "$dir.x$factor.paired.csv"
    echo "$i $factor paired $(verdicts "$dir.x$factor.paired.csv") $?" >> "$work/detect.txt"
    "$bin/collbench" compare "$dir/A" "$dir/B_x$factor" --format csv > "$dir.x$factor.unpaired.csv"
    echo "$i $factor unpaired $(verdicts "$dir.x$factor.unpaired.csv") $?" >> "$work/detect.txt"
  done
done
echo "pair runs_a_side rows same faster slower unknown exit wall_s" > "$work/early.txt"
for i in $(seq 1 "$early"); do
  dir="$work/early$i"
  rm -rf "$dir"
  "$bin/collbench" ab --np 2 --runs 3 --max-runs 8 --out "$dir" --format json -- "${bench[@]}" ::: "${bench[@]}" > "$dir.json" 2> "$dir.log"
  code=$?
  python3 -c "
import json,sys
d=json.load(open(sys.argv[1])); c=d['counts']
print(sys.argv[2], d['runs_a_side'], sum(c.values()), c['same'], c['faster'], c['slower'], c['unknown'], sys.argv[3], round(d['wall_s'],1))" \
    "$dir.json" "$i" "$code" >> "$work/early.txt"
done
cat "$work/aa.txt" "$work/detect.txt" "$work/early.txt"
