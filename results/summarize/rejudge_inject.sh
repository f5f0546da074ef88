#!/usr/bin/env bash
# Re-judges the folders measure_inject.sh left (WORK/{aa,s10_,s5_}N/{A,B}) with one collbench,
# paired as ab judges them, on every complete run pair a folder holds (a run killed from outside
# ends its ab early; its finished pairs still count when there are at least 3). Usage:
#   results/summarize/rejudge_inject.sh COLLBENCH WORK_DIR
set -u
collbench="$1"; work="$2"
printf "%-6s %12s %10s %16s %14s\n" kind "exit 1" "pairs" "rows S/=/F/?" "set aside"
for kind in aa s10_ s5_; do
  used=0; fails=0; pairs=""; s=0; m=0; f=0; u=0; aside=0
  for dir in "$work/$kind"[0-9]*; do
    [ -d "$dir/A" ] || continue
    # Keep only complete pairs: a run's report on both sides.
    tmp=$(mktemp -d)
    mkdir -p "$tmp/A" "$tmp/B"
    n=0
    for report in "$dir/A"/run-*.json; do
      name=$(basename "$report")
      [ -s "$dir/B/$name" ] || continue
      cp "$report" "$tmp/A/" && cp "$dir/B/$name" "$tmp/B/" && n=$((n + 1))
    done
    if [ "$n" -ge 3 ]; then
      used=$((used + 1)); pairs="$pairs $n"
      "$collbench" compare "$tmp/A" "$tmp/B" --paired --format json > "$tmp/out.json" 2>/dev/null
      [ $? -eq 1 ] && fails=$((fails + 1))
      read -r a b c d e < <(python3 -c "
import json,sys,re
d=json.load(open(sys.argv[1])); c=d['counts']
aside=sum(int(m.group(1)) for n in d.get('notes',[]) for m in [re.match(r'(\d+) run pair', n)] if m)
print(c['slower'], c['same'], c['faster'], c['unknown'], aside)" "$tmp/out.json")
      s=$((s + a)); m=$((m + b)); f=$((f + c)); u=$((u + d)); aside=$((aside + e))
    fi
    rm -rf "$tmp"
  done
  printf "%-6s %12s %10s %16s %14s\n" "$kind" "$fails/$used" "$(echo $pairs | tr ' ' '\n' | sort -n | uniq -c | awk '{printf "%sx%s ", $1, $2}')" "$s/$m/$f/$u" "$aside"
done
