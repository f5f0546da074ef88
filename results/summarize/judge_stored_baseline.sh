#!/usr/bin/env bash
# Judges the checks and rolling runs that measure_stored_baseline.sh made (issue 65, item 4); no runs
# of its own, so it may be run again on a kept WORK. Usage:
#   results/summarize/judge_stored_baseline.sh BUILD_DIR WORK_DIR [LENGTH...]
# Each check (WORK/checks/aa-K: the same build; s10-K: --inject-slowdown 10) against WORK/baseline by
#   new       collbench compare --recordings BASELINE CHECK (the rule of issue 65, as ci-perf.sh runs it)
#   today     collbench compare FIRST_RECORDING CHECK (the baseline as ci-perf.sh stored it before: 5 runs of one recording)
#   pooled    collbench compare BASELINE CHECK (every recording's runs as runs, without --recordings)
# all with --min-effect 5 % (ci-perf.sh's). history: per collective, over the first run of each
# check in time order, windows of LENGTH runs (default 12, 16, 20, 24 where there are enough
# checks) ending at every check: flat (A/A runs only) and step (A/A runs, then the +10 % runs of
# the window's last 5 checks); "found": a regression named within one run of the step. Windows
# overlap, so they are not independent series. Writes WORK/judged.txt, WORK/history.txt and WORK/results.md.
set -u
build="$(cd "$1" && pwd)"; work="$(cd "$2" && pwd)"
shift 2
lengths=("$@")
collbench="$build/bin/collbench"
baseline="$work/baseline"
first=$(find "$baseline" -mindepth 1 -maxdepth 1 -type d -name 'recording-*' | sort | head -1)
[ -n "$first" ] || { echo "judge_stored_baseline: no recording in $baseline" >&2; exit 2; }
checks=$(find "$work/checks" -mindepth 1 -maxdepth 1 -type d -name 'aa-*' | wc -l)

# judge RULE KIND K: one compare, one line of judged.txt: rule kind k exit same faster slower unknown capped.
judge() {
  local rule=$1 kind=$2 k=$3 base=() verdict code
  case "$rule" in
    new) base=(--recordings "$baseline") ;;
    today) base=("$first") ;;
    pooled) base=("$baseline") ;;
  esac
  verdict="$work/judged/$rule-$kind-$k.json"
  "$collbench" compare --min-effect 5% --format json "${base[@]}" "$work/checks/$kind-$k" > "$verdict" 2> /dev/null
  code=$?
  jq -r --arg line "$rule $kind $k $code" \
    '"\($line) \(.counts.same) \(.counts.faster) \(.counts.slower) \(.counts.unknown) \(.baseline_recordings.slower_capped // 0)"' \
    "$verdict" 2> /dev/null || echo "$rule $kind $k $code - - - - -"
}
rm -rf "$work/judged" && mkdir -p "$work/judged"
: > "$work/judged.txt"
for k in $(seq 1 "$checks"); do
  for kind in aa s10; do
    [ -d "$work/checks/$kind-$k" ] || continue
    for rule in new today pooled; do judge "$rule" "$kind" "$k" >> "$work/judged.txt"; done
  done
done

# history over the rolling runs: WORK/rolling/KIND/COLLECTIVE/run-KK.json, the first run of check K.
rm -rf "$work/rolling" && mkdir -p "$work/rolling"
for k in $(seq 1 "$checks"); do
  for kind in aa s10; do
    for report in "$work/checks/$kind-$k/run-1"/*.json; do
      [ -f "$report" ] || continue
      mkdir -p "$work/rolling/$kind/$(basename "$report" .json)"
      ln -s "$report" "$work/rolling/$kind/$(basename "$report" .json)/run-$(printf %03d "$k").json"
    done
  done
done
if [ ${#lengths[@]} -eq 0 ]; then
  for length in 12 16 20 24; do [ "$length" -le "$checks" ] && lengths+=("$length"); done
fi
: > "$work/history.txt"
for length in "${lengths[@]}"; do
  for collective in all_reduce broadcast all_gather; do
    [ -d "$work/rolling/aa/$collective" ] || continue
    for (( end = length; end <= checks; end++ )); do
      step=$(( end - 4 ))
      for series in flat step; do
        dir="$work/judged/history/L$length/$collective-$series-$end"
        mkdir -p "$dir"
        for (( k = end - length + 1; k <= end; k++ )); do
          kind=aa
          [ "$series" = step ] && [ "$k" -ge "$step" ] && kind=s10
          name="run-$(printf %03d "$k").json"
          ln -s "$work/rolling/$kind/$collective/$name" "$dir/$name"
        done
        "$collbench" history "$dir" --format json > "$dir.json" 2> /dev/null
        code=$?
        near="run-($(printf %03d $(( step - 1 )))|$(printf %03d "$step")|$(printf %03d $(( step + 1 ))))"
        found=0
        jq -e --arg near "$near" '[.regression_reports[]? | test($near)] | any' "$dir.json" > /dev/null 2>&1 && found=1
        more=$(jq -r '.all_rows.more_runs // "-"' "$dir.json" 2> /dev/null)
        detectable=$(jq -r '.all_rows.detectable_change // "-"' "$dir.json" 2> /dev/null)
        echo "$length $collective $series $end $code $found $more $detectable" >> "$work/history.txt"
      done
    done
  done
done

load_range=$(awk '{ if (min == "" || $2 < min) min = $2; if ($2 > max) max = $2 } END { printf "%s-%s", min, max }' "$work/load.txt" 2> /dev/null)
{
  echo "# A stored baseline over time: $(cat "$work/started.txt" 2> /dev/null) .. $(cat "$work/finished.txt" 2> /dev/null)"
  echo
  echo "$(nproc) cores, load average $load_range; $(find "$baseline" -mindepth 1 -maxdepth 1 -type d -name 'recording-*' | wc -l) recordings"
  echo "($(basename "$first") first), $checks A/A checks and as many +10 % checks (--inject-slowdown 10), --min-effect 5 %."
  echo
  echo "| rule | checks | kind | exit 1 (a row SLOWER) | every row UNKNOWN | rows UNKNOWN | rows SLOWER capped |"
  echo "|---|---|---|---|---|---|---|"
  for rule in new today pooled; do
    for kind in aa s10; do
      awk -v r="$rule" -v k="$kind" '$1 == r && $2 == k {
          n++; if ($4 == 1) slower++; rows = $5 + $6 + $7 + $8; if (rows > 0 && $8 == rows) allunknown++
          unknown += $8; total += rows; capped += $9 }
        END { printf "| %s | %d | %s | %d of %d | %d | %d of %d | %d |\n", r, n, (k == "aa" ? "A/A" : "+10 %"), slower, n, allunknown, unknown, total, capped }' \
        "$work/judged.txt"
    done
  done
  echo
  echo "history over the rolling runs (the first run of each check; windows end at every check, so they overlap):"
  echo
  echo "| runs (L) | collective | flat windows | flat exit 1 | step windows | step found within 1 run | median detectable (all rows) |"
  echo "|---|---|---|---|---|---|---|"
  for length in "${lengths[@]}"; do
    for collective in all_reduce broadcast all_gather; do
      median=$(awk -v l="$length" -v c="$collective" '$1 == l && $2 == c && $8 != "-" { print $8 }' "$work/history.txt" | sort -g |
        awk '{ d[NR] = $1 } END { if (NR) printf "%.1f %%", 100 * d[int((NR + 1) / 2)]; else printf "-" }')
      awk -v l="$length" -v c="$collective" -v median="$median" '$1 == l && $2 == c {
          if ($3 == "flat") { flat++; if ($5 == 1) alarms++ } else { step++; if ($6 == 1) found++ } }
        END { if (flat + step == 0) exit
              printf "| %d | %s | %d | %d | %d | %d of %d | %s |\n", l, c, flat, alarms, step, found, step, median }' "$work/history.txt"
    done
  done
} > "$work/results.md"
cat "$work/results.md"
