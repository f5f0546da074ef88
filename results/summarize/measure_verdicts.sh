#!/usr/bin/env bash
# Issue 20's goals, measured with the documented CI flow on this machine, under the load it has:
#   1. A/A, --inject-slowdown 10 and 5 with `collbench ab --np 2` (measure_inject.sh, ci-perf's
#      all_reduce suite, interleaved, default figure and statistic);
#   2. history over 12 dated real runs, flat, and with --inject-slowdown 10 from run 8 on, judged
#      with the machine-state guard (the default: each report's context.state_probe) and, on the
#      same runs, with --state-guard off;
#   3. a baseline whose context.machine.cpu_model was rewritten, no fingerprint.txt.
# Writes WORK/verdicts.md (the tables, with the load average sampled every 30 s) and keeps every
# report. Nothing here is tuned to its own results: defaults only.
#   results/summarize/measure_verdicts.sh BIN_DIR WORK_DIR [AA [INJECT10 [INJECT5 [SERIES]]]]
# Defaults 100 100 40 20 (the issue's "at least"); a smoke: ... BIN WORK 2 2 1 1; history only: 0 0 0 20.
# HISTORY_ORDER=consecutive|interleaved: how the history series' runs are ordered (see 2.).
# SUITE: the benchmark's arguments (default ci-perf's suite; before 2026-11-26 it was
# --sizes 64K,256K -n 40 -w 5 -c 1 --samples -T 120).
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="$1"; work="$2"; aa="${3:-100}"; s10="${4:-100}"; s5="${5:-40}"; series="${6:-20}"
runs="${RUNS:-3}"; max_runs="${MAX_RUNS:-10}"
read -r -a suite <<< "${SUITE:---sizes 64K,256K -n 500 -N 8 -w 5 -c 1 -T 120}"  # ci-perf's suite
mkdir -p "$work"
( while true; do echo "$(date -u +%H:%M:%S) $(cut -d' ' -f1-3 /proc/loadavg)"; sleep 30; done ) > "$work/load.txt" &
sampler=$!
trap 'kill $sampler' EXIT
load_range() { awk '{ if (min == "" || $2 < min) min = $2; if ($2 > max) max = $2 } END { printf "%s-%s", min, max }' "$work/load.txt"; }

# 1. A/A and injected slowdowns. measure_inject.sh pairs A/A with inject-10 one to one; the
# larger of the two counts sets the pairs.
pairs=$(( aa > s10 ? aa : s10 ))
if [ "$pairs" -gt 0 ] || [ "$s5" -gt 0 ]; then  # 0 0 0 SERIES: history only
  "$here/measure_inject.sh" "$bin" "$pairs" "$s5" "$work/ab" "$runs" "$max_runs" "${suite[@]}" > /dev/null
fi

# 2. History: SERIES series of 12 runs each, flat and with a 10 % step from run 8 (index 7) on.
# HISTORY_ORDER=consecutive (default): a series' 12 runs back to back, 0.3 s apart, so a machine
# state that lasts a second spans several of its runs. interleaved: run k of every series before
# run k + 1 of any, as runs of a real history lie apart; the same runs, programs and load.
mpirun=("$here/../../scripts/mpirun-local.sh" -np 2)
history_order="${HISTORY_ORDER:-consecutive}"
rm -rf "$work/history" "$work/history.txt" "$work/history-unguarded.txt"  # a second use of WORK must not mix its series with the first's
case "$history_order" in consecutive|interleaved) ;; *) echo "HISTORY_ORDER: consecutive or interleaved, not '$history_order'" >&2; exit 2 ;; esac
history_run() {  # history_run KIND SERIES RUN
  local dir="$work/history/$1-$2" extra=()
  mkdir -p "$dir"
  [ "$1" = step ] && [ "$3" -ge 7 ] && extra=(--inject-slowdown 10)
  "${mpirun[@]}" "$bin/all_reduce_perf" "${suite[@]}" "${extra[@]}" -J "$dir/run-$(printf %02d "$3").json" > /dev/null 2>&1
}
if [ "$history_order" = consecutive ]; then
  for kind in flat step; do
    for s in $(seq 1 "$series"); do
      for run in $(seq 0 11); do history_run "$kind" "$s" "$run"; done
    done
  done
else
  for run in $(seq 0 11); do
    for s in $(seq 1 "$series"); do
      for kind in flat step; do history_run "$kind" "$s" "$run"; done
    done
  done
fi
for kind in flat step; do
  for s in $(seq 1 "$series"); do
    "$bin/collbench" history "$work/history/$kind-$s" --format json > "$work/history/$kind-$s.json" 2> /dev/null
    echo "$kind $s $?" >> "$work/history.txt"
    "$bin/collbench" history "$work/history/$kind-$s" --state-guard off --format json > "$work/history/$kind-$s.unguarded.json" 2> /dev/null
    echo "$kind $s $?" >> "$work/history-unguarded.txt"
  done
done

# 3. Another CPU model, no fingerprint file: the first A/A folder's B side against a copy of its A
# side with the CPU model rewritten.
foreign="$work/foreign"
rm -rf "$foreign"; mkdir -p "$foreign"
foreign_exit="not run (no A/A comparison)"; : > "$work/foreign.txt"
if [ -d "$work/ab/aa1/A" ]; then
  for report in "$work/ab/aa1/A"/run-*.json; do
    jq '.context.machine.cpu_model = "Another CPU 1"' "$report" > "$foreign/$(basename "$report")"
  done
  "$bin/collbench" compare "$foreign" "$work/ab/aa1/B" > "$work/foreign.txt" 2>&1
  foreign_exit=$?
fi

# The tables.
{
  echo "# Verdict rates, $(date -u +%Y-%m-%d) (load average $(load_range) over the runs; $(nproc) cores)"
  echo
  echo "| comparison | count | exit 1 | rate | median runs a side |"
  echo "|---|---|---|---|---|"
  for kind in aa s10_ s5_; do
    [ -f "$work/ab/results.txt" ] || break
    # mawk has no asort: the runs' median comes from sort.
    median_runs=$(awk -v k="$kind" 'NR > 1 && $1 == k { print $4 }' "$work/ab/results.txt" | sort -n |
      awk '{ r[NR] = $1 } END { print NR ? r[int((NR + 1) / 2)] : "-" }')
    awk -v k="$kind" -v m="$median_runs" 'NR > 1 && $1 == k { n++; if ($3 == 1) f++ } END {
      printf "| %s | %d | %d | %.0f %% | %s |\n", k, n, f, n ? 100 * f / n : 0, m }' "$work/ab/results.txt"
  done
  echo
  echo "History runs: $history_order."
  echo
  # Whether the runs recorded the probe at all (a null is a probe that could not be made).
  probed=$(cat "$work"/history/*/run-*.json | jq -s '[.[] | .context.state_probe | select(. != null) | .before_ns, .after_ns | select(. != null)] | length')
  echo "State probes made: $probed of $(( 2 * 24 * series )) (before and after each of the history's runs)."
  echo
  echo "| history | guard | series | exit 0 | exit 1 | regression within 1 run of the step | runs set aside by the state guard |"
  echo "|---|---|---|---|---|---|---|"
  for guard in on off; do
    results="$work/history.txt"; suffix=""
    [ "$guard" = off ] && results="$work/history-unguarded.txt" && suffix=".unguarded"
    for kind in flat step; do
      ok=0; bad=0; near=0; aside=0
      for s in $(seq 1 "$series"); do
        code=$(awk -v k="$kind" -v s="$s" '$1 == k && $2 == s { print $3 }' "$results")
        [ "$code" = 0 ] && ok=$((ok + 1)); [ "$code" = 1 ] && bad=$((bad + 1))
        # The step's first run is index 7: a regression (exit 1; history's regression_reports names
        # where each starts) at run-06 .. run-08 counts. A change in the table that did not pass
        # Holm's correction over the series is not "found".
        jq -e '[.regression_reports[]? | test("run-0[678]")] | any' "$work/history/$kind-$s$suffix.json" > /dev/null 2>&1 && near=$((near + 1))
        aside=$((aside + $(jq '.state_guard.set_aside | length' "$work/history/$kind-$s$suffix.json" 2> /dev/null || echo 0)))
      done
      echo "| $kind | $guard | $series | $ok | $bad | $near | $aside |"
    done
  done
  echo
  echo "Foreign CPU model, no fingerprint.txt: exit $foreign_exit; $(grep -c 'verdict: UNKNOWN' "$work/foreign.txt") verdict line(s) UNKNOWN:"
  echo
  grep 'verdict:' "$work/foreign.txt" | sed 's/^/    /'
} > "$work/verdicts.md"
cat "$work/verdicts.md"
