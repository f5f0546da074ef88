#!/usr/bin/env bash
# Judges measure_verdicts.sh's history series again with another collbench or other history
# flags, and prints one line per series and the table (flat: exit 0 wanted; step: a regression
# starting at run-06 .. run-08, the step being at run-07).
#   results/summarize/rejudge_history.sh BIN_DIR WORK/history [collbench history flags...]
set -u
bin=$1 dir=$2; shift 2
out=$(mktemp); trap 'rm -f "$out"' EXIT
for kind in flat step; do
  ok=0 bad=0 near=0
  for s in $(seq 1 20); do
    [ -d "$dir/$kind-$s" ] || continue
    "$bin/collbench" history "$dir/$kind-$s" --format json "$@" > "$out" 2>/dev/null; code=$?
    [ "$code" = 0 ] && ok=$((ok + 1)); [ "$code" = 1 ] && bad=$((bad + 1))
    found=no
    jq -e '[.regression_reports[]? | test("run-0[678]")] | any' "$out" > /dev/null 2>&1 && { near=$((near + 1)); found=yes; }
    echo "$kind-$s exit $code near_step $found set_aside $(jq -r '.all_rows.set_aside // [] | length' "$out") all_rows_p $(jq -r '.all_rows.slowdown.p_value // "-"' "$out")"
  done
  echo "TABLE $kind: exit 0 $ok, exit 1 $bad, regression within 1 run of the step $near"
done
