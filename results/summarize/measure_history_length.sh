#!/usr/bin/env bash
# How many dated runs `history` needs to place a 10 % step within one run, measured with real runs
# (issue 47: "if 12 runs still cannot reach the goal, show what the probe buys").
#   results/summarize/measure_history_length.sh BIN_DIR WORK_DIR [SERIES [RUNS]]
# SERIES flat and SERIES step series of RUNS runs each (defaults 20 and 24), run k of every series
# before run k + 1 of any (interleaved, as runs of a real history lie apart), ci-perf's all_reduce
# suite at 2 ranks; a step series runs with --inject-slowdown 10 in its last 5 runs. Each series is
# then judged by `collbench history` on its last L runs, for L = 12, 16, 20 ... RUNS (always the
# same 5 slow runs at the end, L - 5 before them), with the machine-state guard (the default) and
# with --state-guard off, on the same reports. Writes WORK/lengths.md and keeps every report and
# verdict; the load average is sampled every 30 s into WORK/load.txt. Defaults only: nothing here
# is tuned to its own results. OLD_COLLBENCH=PATH also judges every series with another build of
# collbench (guards "old-on" and "old-off"), for a rule against the one it replaced, on the same reports.
# STAGGER=1: series s's step starts at run M - 5 + (s - 1) mod (RUNS - M + 1) instead of RUNS - 5,
# and series s (flat and step) is judged only on the L runs around it (L - 5 before, 5 from it on),
# for L = 12, 16 ... M (M: JUDGE_MAX, default 12), so that one drift of the machine cannot meet
# every series' step at once (all series share one timeline: results/summarize/state-cycles-2026-12-02).
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="$1"; work="$2"; series="${3:-20}"; runs="${4:-24}"
[ "$runs" -ge 12 ] || { echo "measure_history_length: RUNS must be at least 12" >&2; exit 2; }
step_from=$(( runs - 5 ))
stagger="${STAGGER:-0}"
judge_max="${JUDGE_MAX:-12}"
[ "$stagger" = 1 ] && { [ "$judge_max" -ge 12 ] && [ "$judge_max" -le "$runs" ] ||
  { echo "measure_history_length: JUDGE_MAX must be 12 to RUNS" >&2; exit 2; }; }
# The run series S's step starts at (the same for its flat twin, which is judged on the same runs).
step_of() { if [ "$stagger" = 1 ]; then echo $(( judge_max - 5 + ($1 - 1) % (runs - judge_max + 1) )); else echo "$step_from"; fi; }
read -r -a suite <<< "${SUITE:---sizes 64K,256K -n 500 -N 8 -w 5 -c 1 -T 120}"  # ci-perf's suite
mpirun=("$here/../../scripts/mpirun-local.sh" -np 2)
# JUDGE_ONLY=1: no runs; judge the reports already in WORK/history again (a kept earlier run's).
judge_only="${JUDGE_ONLY:-0}"
[ "$judge_only" = 1 ] || rm -rf "$work/history"  # a second use of WORK must not mix series
rm -rf "$work/judged" "$work/lengths.txt"
mkdir -p "$work/history" "$work/judged"
( while true; do echo "$(date -u +%H:%M:%S) $(cut -d' ' -f1-3 /proc/loadavg)"; sleep 30; done ) > "$work/load.txt" &
sampler=$!
trap 'kill $sampler' EXIT
started=$(date -u +%H:%M:%S)  # with JUDGE_ONLY=1 the figures' times are the original run's, not these

for run in $(seq 0 $(( runs - 1 ))); do
  [ "$judge_only" = 1 ] && break
  for s in $(seq 1 "$series"); do
    for kind in flat step; do
      dir="$work/history/$kind-$s"; extra=()
      mkdir -p "$dir"
      [ "$kind" = step ] && [ "$run" -ge "$(step_of "$s")" ] && extra=(--inject-slowdown 10)
      "${mpirun[@]}" "$bin/all_reduce_perf" "${suite[@]}" "${extra[@]}" -J "$dir/run-$(printf %02d "$run").json" > /dev/null 2>&1
    done
  done
done
finished=$(date -u +%H:%M:%S)

# Judge the last L runs of each series. A regression counts as found when history's
# regression_reports names a run within one of the step's first (step_from - 1 .. step_from + 1).
near_of() { local at; at=$(step_of "$1"); echo "run-($(printf %02d $(( at - 1 )))|$(printf %02d "$at")|$(printf %02d $(( at + 1 ))))"; }
guards=(on off)
[ -n "${OLD_COLLBENCH:-}" ] && guards+=(old-on old-off)
lengths=()
for (( length = 12; length <= runs; length += 4 )); do lengths+=("$length"); done
[ "${lengths[-1]}" = "$runs" ] || lengths+=("$runs")
if [ "$stagger" = 1 ]; then  # each series on the L runs around its own step
  lengths=()
  for (( length = 12; length <= judge_max; length += 4 )); do lengths+=("$length"); done
fi
for length in "${lengths[@]}"; do
  for kind in flat step; do
    for s in $(seq 1 "$series"); do
      dir="$work/judged/L$length/$kind-$s"
      mkdir -p "$dir"
      last=$(( $(step_of "$s") + 4 ))  # the window ends 5 runs into the step (RUNS - 1 unstaggered)
      for run in $(seq $(( last + 1 - length )) "$last"); do
        name="run-$(printf %02d "$run").json"
        ln -s "../../../history/$kind-$s/$name" "$dir/$name"
      done
      for guard in "${guards[@]}"; do
        verdict="$work/judged/L$length/$kind-$s.guard-$guard.json"
        judge="$bin/collbench"
        [ "${guard#old-}" != "$guard" ] && judge="$OLD_COLLBENCH"
        "$judge" history "$dir" --state-guard "${guard#old-}" --format json > "$verdict" 2> /dev/null
        code=$?
        near=0
        jq -e --arg near "$(near_of "$s")" '[.regression_reports[]? | test($near)] | any' "$verdict" > /dev/null 2>&1 && near=1
        aside=$(jq '.state_guard.set_aside | length' "$verdict" 2> /dev/null || echo 0)
        cycles=$(jq '[.state_guard.cycles_set_aside[]?.cycles | length] | add // 0' "$verdict" 2> /dev/null || echo 0)
        echo "$length $guard $kind $s $code $near $aside $cycles" >> "$work/lengths.txt"
      done
    done
  done
done

probed=$(cat "$work"/history/*/run-*.json | jq -s '[.[] | .context.state_probe | select(. != null) | .before_ns, .after_ns, (.between_cycles_ns // [] | .[]) | select(. != null)] | length')
cycles_per_run=$(jq '.context.options.cycles // 1' "$work/history/flat-1/run-00.json")
load_range=$(awk '{ if (min == "" || $2 < min) min = $2; if ($2 > max) max = $2 } END { printf "%s-%s", min, max }' "$work/load.txt")
{
  echo "# history: runs needed for a 10 % step, $(date -u +%Y-%m-%d) (runs $started-$finished UTC; load average $load_range; $(nproc) cores)"
  echo
  echo "$series flat and $series step series of $runs runs, interleaved; the step (--inject-slowdown 10) in each step"
  if [ "$stagger" = 1 ]; then
    echo "series from run $(( judge_max - 5 )) + (s - 1) mod $(( runs - judge_max + 1 )) on (staggered); each series, flat and step, judged on the L runs"
    echo "around that run (L - 5 before it, 5 from it). \"found\": a regression named within one run of the series' own step."
  else
    echo "series' last 5 runs (from run $step_from); each series judged on its last L runs. \"found\": a regression named at runs $(( step_from - 1 ))-$(( step_from + 1 ))."
  fi
  echo "State probes made: $probed of $(( 2 * series * runs * (cycles_per_run + 1) )) (before and after each run, and between its $cycles_per_run cycles)."
  echo
  echo "| runs judged (L) | guard | flat exit 0 | flat exit 1 | step exit 1 | step found within 1 run | runs set aside (flat + step) | cycles left out of runs kept |"
  echo "|---|---|---|---|---|---|---|---|"
  for length in "${lengths[@]}"; do
    for guard in "${guards[@]}"; do
      awk -v l="$length" -v g="$guard" -v n="$series" '$1 == l && $2 == g {
          if ($3 == "flat") { if ($5 == 0) fok++; if ($5 == 1) fbad++ }
          else { if ($5 == 1) sbad++; if ($6 == 1) found++ }
          aside += $7; cycles += $8 }
        END { printf "| %d | %s | %d of %d | %d | %d | %d of %d | %d | %d |\n", l, g, fok, n, fbad, sbad, found, n, aside, cycles }' "$work/lengths.txt"
    done
  done
} > "$work/lengths.md"
cat "$work/lengths.md"
