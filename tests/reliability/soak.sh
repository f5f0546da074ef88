#!/usr/bin/env bash
# Soak: a long small-message run keeps resident memory flat. Samples VmRSS of every rank from
# /proc twice a second and prints the first and last samples per rank, plus the peak.
# usage: soak.sh BIN_DIR [NP] [ITERATIONS_PER_ROW] [ROWS]   (defaults 2, 100000, 5)
set -uo pipefail
bin_dir=$1 np=${2:-2} iterations=${3:-100000} rows=${4:-5}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
report="$work/soak.json"
"$here/../../scripts/mpirun-local.sh" -np "$np" "$bin_dir/sendrecv_perf" -b 8 -e 8 -n "$iterations" -w 100 \
  -N "$rows" --placement out -T 60 -J "$report" >"$work/stdout" 2>"$work/stderr" &
launcher=$!
declare -A first last peak
while kill -0 "$launcher" 2>/dev/null; do
  for pid in $(pgrep -f -- "-J $report"); do
    [ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$(readlink -f "$bin_dir/sendrecv_perf")" ] || continue
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null) || continue
    [ -n "$rss" ] || continue
    [ -n "${first[$pid]:-}" ] || first[$pid]=$rss
    last[$pid]=$rss
    [ "$rss" -gt "${peak[$pid]:-0}" ] && peak[$pid]=$rss
  done
  sleep 0.5
done
wait "$launcher"
status=$?
echo "sendrecv_perf -np $np -b 8 -e 8 -n $iterations -N $rows ($(( iterations * rows )) timed iterations per rank): exit $status"
for pid in "${!first[@]}"; do
  echo "pid $pid: VmRSS first ${first[$pid]} KiB, last ${last[$pid]} KiB, peak ${peak[$pid]} KiB, change $(( last[$pid] - first[$pid] )) KiB"
done
"$bin_dir/report_probe" "$report"
grep -E "^ +8 " "$work/stdout" | head -"$rows"
exit "$status"
