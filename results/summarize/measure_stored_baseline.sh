#!/usr/bin/env bash
# A/A and +10 % against a stored baseline made at other times, over hours (issue 65, item 4), with
# scripts/ci-perf.sh as a CI job runs it. Usage:
#   results/summarize/measure_stored_baseline.sh BUILD_DIR WORK_DIR [CHECKS [INTERVAL_S [RECORDINGS]]]
# Defaults: 52 checks, a slot every 150 s, 5 recordings: about 2 h 25 min on the 2-core VM
# (RECORDINGS + CHECKS slots of INTERVAL_S each, a slot's work taking 40-70 s of it).
# - Slots 1..RECORDINGS: `ci-perf.sh --update-baseline` (BASELINE_RUNS runs, default 5) adds a
#   recording to WORK/baseline, so the baseline's recordings lie INTERVAL_S apart.
# - Then each slot: an A/A check (`ci-perf.sh`, RUNS runs, default 3, this build) and a +10 % check
#   (the same with INJECT_SLOWDOWN=10), their reports in WORK/checks/aa-K and WORK/checks/s10-K and
#   the live verdict (the new rule, compare --recordings) in WORK/checks/*.md and *.code.
# - Then judge_stored_baseline.sh WORK judges every check again by the new rule, by today's rule
#   (the first recording alone, as ci-perf.sh stored a baseline before, and every recording pooled
#   without --recordings), and runs `collbench history` over the rolling runs (the first run of
#   each check, a step of real +10 % runs staggered through them): WORK/results.md.
# The load average is sampled every 30 s into WORK/load.txt. Nothing else should run meanwhile.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="$(cd "$1" && pwd)"; work="$2"; checks="${3:-52}"; interval="${4:-150}"; recordings="${5:-5}"
[[ "$checks" =~ ^[0-9]+$ && "$interval" =~ ^[0-9]+$ && "$recordings" =~ ^[0-9]+$ ]] && [ "$recordings" -ge 1 ] ||
  { echo "measure_stored_baseline: CHECKS, INTERVAL_S and RECORDINGS must be whole numbers (RECORDINGS at least 1)" >&2; exit 2; }
[ -x "$build/bin/collbench" ] || { echo "measure_stored_baseline: no $build/bin/collbench" >&2; exit 2; }
ci_perf="$here/../../scripts/ci-perf.sh"
mkdir -p "$work/checks"
rm -rf "$work/baseline"  # a second use of WORK starts a new baseline
( while true; do echo "$(date -u +%H:%M:%S) $(cut -d' ' -f1-3 /proc/loadavg)"; sleep 30; done ) > "$work/load.txt" &
sampler=$!
trap 'kill $sampler' EXIT
date -u +%Y-%m-%dT%H:%M:%SZ > "$work/started.txt"

# check NAME [VARIABLE=VALUE...]: one ci-perf.sh check against the baseline, its reports kept.
check() {
  local name=$1
  shift
  rm -rf "$work/checks/$name"
  env "$@" BUILD_DIR="$build" BASELINE="$work/baseline" OUT="$work/checks/$name" BASELINE_RECORDINGS=1000 \
    bash "$ci_perf" > "$work/checks/$name.md" 2> "$work/checks/$name.log"
  echo $? > "$work/checks/$name.code"
}

for slot in $(seq 1 $(( recordings + checks ))); do
  started=$(date +%s)
  if [ "$slot" -le "$recordings" ]; then
    BUILD_DIR="$build" BASELINE="$work/baseline" BASELINE_RECORDINGS=1000 OUT="$work/recording-out-$slot" bash "$ci_perf" --update-baseline \
      >> "$work/recordings.log" 2>&1 || echo "slot $slot: the recording failed (see recordings.log)" >&2
    rm -rf "$work/recording-out-$slot"
  else
    k=$(( slot - recordings ))
    check "aa-$k"
    check "s10-$k" INJECT_SLOWDOWN=10
    echo "$(date -u +%H:%M:%S) check $k: A/A exit $(cat "$work/checks/aa-$k.code"), +10 % exit $(cat "$work/checks/s10-$k.code")"
  fi
  left=$(( interval - ($(date +%s) - started) ))
  [ "$left" -gt 0 ] && [ "$slot" -lt $(( recordings + checks )) ] && sleep "$left"
done
date -u +%Y-%m-%dT%H:%M:%SZ > "$work/finished.txt"
kill $sampler
trap - EXIT
bash "$here/judge_stored_baseline.sh" "$build" "$work"
