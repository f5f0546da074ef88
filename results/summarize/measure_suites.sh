#!/usr/bin/env bash
# Two suites' verdict rates in one window, interleaved: ROUNDS rounds, each one A/A, one
# --inject-slowdown 10 and one --inject-slowdown 5 comparison (measure_inject.sh: collbench ab,
# --np 2, defaults) with suite 1 and then suite 2, the order swapped every round, so that a machine
# state that lasts minutes falls on both suites alike. Usage:
#   results/summarize/measure_suites.sh BIN_DIR WORK ROUNDS "SUITE 1" "SUITE 2"
# Prints one table row per suite and kind: comparisons and exit 1; WORK keeps every ab folder.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="$1"; work="$2"; rounds="$3"; suites=("$4" "$5")
mkdir -p "$work"
( while true; do echo "$(date -u +%H:%M:%S) $(cut -d' ' -f1 /proc/loadavg)"; sleep 30; done ) > "$work/load.txt" &
sampler=$!
trap 'kill $sampler' EXIT
for round in $(seq 1 "$rounds"); do
  order="0 1"; [ $((round % 2)) = 0 ] && order="1 0"
  for s in $order; do
    # shellcheck disable=SC2086  # a suite is several flags
    "$here/measure_inject.sh" "$bin" 1 1 "$work/suite$((s + 1))-$round" 3 "${MAX_RUNS:-10}" ${suites[$s]} > /dev/null 2>&1
  done
done
echo "| suite | A/A exit 1 | +10 % exit 1 | +5 % exit 1 |"
echo "|---|---|---|---|"
for s in 1 2; do
  cat "$work"/suite$s-*/results.txt | awk -v name="${suites[$((s - 1))]}" '$1 != "kind" { n[$1]++; if ($3 == 1) f[$1]++ }
    END { printf "| `%s` | %d/%d | %d/%d | %d/%d |\n", name, f["aa"], n["aa"], f["s10_"], n["s10_"], f["s5_"], n["s5_"] }'
done
echo
echo "1-minute load average over the rounds: $(awk '{ if (min == "" || $2 < min) min = $2; if ($2 > max) max = $2 } END { printf "%s-%s", min, max }' "$work/load.txt")"
