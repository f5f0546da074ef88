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
      fails=0; slower=0; same=0; unknown=0; rows=0; whole_slower=0; whole_same=0; whole_unknown=0
      for i in $(seq 1 "$pairs"); do
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
      printf "%-10s %-8s %-6s %8s %14s %14s %14s %16s\n" "$pairing" "$correction" "${new#B_x}" "$fails/$pairs" "$slower/$rows" "$same/$rows" \
        "$unknown/$rows" "$whole_slower/$whole_same/$whole_unknown"
    done
  done
done
