#!/usr/bin/env bash
# Re-judges the folders measure_runs.sh left (WORK/aaN/{A,B,B_x1.05,B_x1.10}) with one collbench and
# every method variant, so variants are compared on the very same runs. Usage:
#   results/summarize/evaluate_runs.sh COLLBENCH WORK_DIR PAIRS
set -u
collbench="$1"; work="$2"; pairs="$3"
printf "%-10s %-8s %-6s %8s %14s %14s %14s %16s\n" method correction new "exit 1" "rows SLOWER" "rows SAME" "rows UNKNOWN" "whole: S/=/?"
for pairing in paired unpaired; do
  for correction in holm none; do
    for new in B B_x1.05 B_x1.10; do
      used=0; fails=0; slower=0; same=0; unknown=0; rows=0; whole_slower=0; whole_same=0; whole_unknown=0
      for i in $(seq 1 "$pairs"); do
        # Only pairs whose 3 runs a side all finished (a run killed from outside leaves fewer).
        [ "$(ls "$work/aa$i/A"/*.json 2>/dev/null | wc -l)" -eq 3 ] && [ "$(ls "$work/aa$i/B"/*.json 2>/dev/null | wc -l)" -eq 3 ] || continue
        used=$((used + 1))
        flags=(--correction "$correction" --format csv)
        [ "$pairing" = paired ] && flags+=(--paired)
        "$collbench" compare "$work/aa$i/A" "$work/aa$i/$new" "${flags[@]}" > "$work/eval.csv" 2>/dev/null
        [ $? -eq 1 ] && fails=$((fails + 1))
        read -r r s m u ws wm wu < <(python3 -c "
import csv,sys
rows=list(csv.DictReader(open(sys.argv[1])))
per=[r for r in rows if r['bytes']!='all']; whole=[r for r in rows if r['bytes']=='all']
c=lambda xs,v: sum(1 for r in xs if r['verdict']==v)
print(len(per), c(per,'SLOWER'), c(per,'SAME'), c(per,'UNKNOWN'), c(whole,'SLOWER'), c(whole,'SAME'), c(whole,'UNKNOWN'))" "$work/eval.csv")
        rows=$((rows + r)); slower=$((slower + s)); same=$((same + m)); unknown=$((unknown + u))
        whole_slower=$((whole_slower + ws)); whole_same=$((whole_same + wm)); whole_unknown=$((whole_unknown + wu))
      done
      printf "%-10s %-8s %-6s %8s %14s %14s %14s %16s\n" "$pairing" "$correction" "${new#B_x}" "$fails/$used" "$slower/$rows" "$same/$rows" \
        "$unknown/$rows" "$whole_slower/$whole_same/$whole_unknown"
    done
  done
done
# The early-stopping folders (earlyN/{A,B}: up to 8 runs a side): A/A as they are, and B scaled by
# 1.05 and 1.10 (synthetic), judged paired with Holm on every run they hold.
early="${4:-0}"
[ "$early" -gt 0 ] || exit 0
echo
printf "%-6s %-6s %8s %14s %16s\n" runs new "exit 1" "rows SLOWER" "whole: S/=/?"
for new in B B_x1.05 B_x1.10; do
  fails=0; slower=0; rows=0; ws=0; wm=0; wu=0; runs=""
  for i in $(seq 1 "$early"); do
    dir="$work/early$i"
    [ -d "$dir/A" ] || continue
    if [ "$new" != B ] && [ ! -d "$dir/$new" ]; then
      python3 - "$dir/B" "$dir/$new" "${new#B_x}" <<'PY'
import json, os, sys
source, target, factor = sys.argv[1], sys.argv[2], float(sys.argv[3])
os.makedirs(target, exist_ok=True)
for name in sorted(os.listdir(source)):
    if name.endswith(".json"):
        report = json.load(open(os.path.join(source, name)))
        for row in report["results"]:
            row["time_us"] = {k: v * factor for k, v in row["time_us"].items()}
            row["samples_us"] = [v * factor for v in row.get("samples_us", [])]
        json.dump(report, open(os.path.join(target, name), "w"))
PY
    fi
    runs="$runs $(ls "$dir/A"/*.json | wc -l)"
    "$collbench" compare "$dir/A" "$dir/$new" --paired --format csv > "$work/eval.csv" 2>/dev/null
    [ $? -eq 1 ] && fails=$((fails + 1))
    read -r r s a b c < <(python3 -c "
import csv,sys
rows=list(csv.DictReader(open(sys.argv[1])))
per=[r for r in rows if r['bytes']!='all']; whole=[r for r in rows if r['bytes']=='all']
c=lambda xs,v: sum(1 for r in xs if r['verdict']==v)
print(len(per), c(per,'SLOWER'), c(whole,'SLOWER'), c(whole,'SAME'), c(whole,'UNKNOWN'))" "$work/eval.csv")
    rows=$((rows + r)); slower=$((slower + s)); ws=$((ws + a)); wm=$((wm + b)); wu=$((wu + c))
  done
  printf "%-6s %-6s %8s %14s %16s\n" "${runs# }" "${new#B_x}" "$fails/$early" "$slower/$rows" "$ws/$wm/$wu"
done
