#!/usr/bin/env bash
# The backend-vs-backend table in one command: the same collectives and sizes on every backend
# that can run here (mpi and gloo on CPU; nccl where a GPU is visible), one report per backend
# and collective, then a Markdown table per collective with small-message latency (µs at 8 B
# and 1 KiB), bus bandwidth at the largest size (GB/s), speedup against a baseline backend at
# that size and a one-line verdict. `collbench speedup --by backend` adds its own tables.
#
# usage: scripts/backends.sh [--np N] [--sizes LIST] [--out DIR] [--baseline NAME]
#                            [--collectives LIST] [--iters N] [--warmup N]
# Figures are one run each: compare them across machines or commits only with several runs
# (collbench compare). Needs jq. Launches with scripts/mpirun-local.sh, or $MPIRUN when set.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin_dir="${COLLBENCH_BIN:-$here/../build/bin}"
launcher=${MPIRUN:-"$here/mpirun-local.sh"}
np=2
sizes="8,1K,1M,64M"
out="backends-$(date +%Y%m%d-%H%M%S)"
baseline=mpi
collectives="all_reduce,broadcast,reduce,all_gather,reduce_scatter,alltoall,gather,scatter,sendrecv"
iterations=20
warmup=5

fail() { echo "backends.sh: error: $1" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --np) np=${2:?--np needs a number}; shift 2 ;;
    --sizes) sizes=${2:?--sizes needs a list}; shift 2 ;;
    --out) out=${2:?--out needs a folder}; shift 2 ;;
    --baseline) baseline=${2:?--baseline needs a backend}; shift 2 ;;
    --collectives) collectives=${2:?--collectives needs a list}; shift 2 ;;
    --iters) iterations=${2:?--iters needs a number}; shift 2 ;;
    --warmup) warmup=${2:?--warmup needs a number}; shift 2 ;;
    -h|--help) sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) fail "unknown argument '$1' (see --help)" ;;
  esac
done
[[ $np =~ ^[1-9][0-9]*$ ]] || fail "--np '$np' is not a positive number"
command -v jq >/dev/null || fail "jq is needed (scripts/setup.sh installs it)"
[ -x "$bin_dir/all_reduce_perf" ] || fail "no $bin_dir/all_reduce_perf: build first (scripts/build.sh)"
[ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ] && fail "--out $out exists and is not empty"
mkdir -p "$out"

# The backends that can run here, as --version lists them: "(backends: mpi gloo; nccl: built, ...".
version=$("$bin_dir/all_reduce_perf" --version)
read -r -a backends <<<"$(sed -E 's/.*\(backends: ([^;)]*).*/\1/' <<<"$version")"
[ ${#backends[@]} -gt 0 ] || fail "no backend can run here ($version)"
printf '%s\n' "${backends[@]}" | grep -qx "$baseline" || fail "--baseline $baseline cannot run here (backends: ${backends[*]})"
echo "backends.sh: backends ${backends[*]}, $np rank(s), sizes $sizes, reports in $out/"

IFS=',' read -r -a collective_list <<<"$collectives"
for collective in "${collective_list[@]}"; do
  [ -x "$bin_dir/${collective}_perf" ] || fail "no collective '$collective' ($bin_dir/${collective}_perf)"
  for backend in "${backends[@]}"; do
    mkdir -p "$out/$backend"
    report="$out/$backend/$collective.json"
    if ! $launcher -np "$np" "$bin_dir/${collective}_perf" --backend "$backend" --sizes "$sizes" --placement out \
         -d float32 -o sum -n "$iterations" -w "$warmup" -c 1 -J "$report" >"$out/$backend/$collective.log" 2>&1; then
      echo "backends.sh: $collective on $backend failed (see $out/$backend/$collective.log)" >&2
    fi
  done
done

# Row means of one report as "bytes time_us busbw_gbps" lines (out of place, the first cycle).
figures() {
  jq -r '.results[] | select(.placement == "out") | "\(.bytes) \(.time_us.mean) \(.busbw_gbps // "null")"' "$1" 2>/dev/null
}
at_size() { awk -v b="$2" '$1 == b { print $'"$3"'; exit }' <<<"$1"; }
human_size() {
  local bytes=$1
  if (( bytes >= 1 << 30 && bytes % (1 << 30) == 0 )); then echo "$((bytes >> 30)) GiB"
  elif (( bytes >= 1 << 20 && bytes % (1 << 20) == 0 )); then echo "$((bytes >> 20)) MiB"
  elif (( bytes >= 1 << 10 && bytes % (1 << 10) == 0 )); then echo "$((bytes >> 10)) KiB"
  else echo "$bytes B"; fi
}

table="$out/backends.md"
{
  echo "# Backends side by side"
  echo
  echo "$np rank(s) on $(hostname), float32 sum, out of place, sizes $sizes, $iterations iterations after $warmup warm-up;"
  echo "time is the mean over iterations of the per-iteration time (see each report's time_aggregation)."
  echo "Speedup = $baseline's time / the backend's time at the largest size (> 1: faster than $baseline). One run each."
  echo
} >"$table"
for collective in "${collective_list[@]}"; do
  largest=$(for backend in "${backends[@]}"; do figures "$out/$backend/$collective.json"; done | awk '{print $1}' | sort -n | tail -1)
  [ -n "$largest" ] || { echo "## $collective: no rows" >>"$table"; continue; }
  base_time=$(at_size "$(figures "$out/$baseline/$collective.json")" "$largest" 2)
  {
    echo "## $collective"
    echo
    echo "| backend | 8 B (µs) | 1 KiB (µs) | busbw at $(human_size "$largest") (GB/s) | speedup vs $baseline |"
    echo "|---|---:|---:|---:|---:|"
  } >>"$table"
  verdicts=()
  for backend in "${backends[@]}"; do
    rows=$(figures "$out/$backend/$collective.json")
    if [ -z "$rows" ]; then
      echo "| $backend | failed | | | |" >>"$table"
      continue
    fi
    small=$(at_size "$rows" 8 2); kib=$(at_size "$rows" 1024 2)
    time=$(at_size "$rows" "$largest" 2); busbw=$(at_size "$rows" "$largest" 3)
    speedup=""
    if [ -n "$base_time" ] && [ -n "$time" ]; then speedup=$(awk -v b="$base_time" -v t="$time" 'BEGIN { printf "%.3g", b / t }'); fi
    small=${small:+$(printf '%.2f' "$small")}; kib=${kib:+$(printf '%.2f' "$kib")}
    printf '| %s | %s | %s | %s | %s |\n' "$backend" "${small:-—}" "${kib:-—}" \
      "$( [ "${busbw:-null}" = null ] && echo "n/a (1 rank)" || printf '%.3f' "$busbw")" "${speedup:-—}" >>"$table"
    if [ "$backend" != "$baseline" ] && [ -n "$speedup" ]; then
      verdicts+=("$(awk -v b="$base_time" -v t="$time" -v base="$baseline" -v other="$backend" -v what="$(human_size "$largest") $collective" 'BEGIN {
        if (b <= t) printf "on this machine, for %s, %s is %.1f× faster than %s", what, base, t / b, other;
        else printf "on this machine, for %s, %s is %.1f× faster than %s", what, other, b / t, base }')")
    fi
  done
  echo >>"$table"
  for verdict in "${verdicts[@]}"; do echo "- $verdict" >>"$table"; done
  echo >>"$table"
done

# What the summarizer gives for the same reports (geometric means over sizes, per backend).
if [ -x "$bin_dir/collbench" ]; then
  for collective in "${collective_list[@]}"; do
    reports=()
    for backend in "${backends[@]}"; do
      [ -s "$out/$backend/$collective.json" ] && reports+=("$out/$backend/$collective.json")
    done
    [ ${#reports[@]} -gt 1 ] || continue
    "$bin_dir/collbench" speedup --by backend --baseline "$baseline" "${reports[@]}" >"$out/speedup-$collective.md" 2>&1 ||
      echo "backends.sh: collbench speedup for $collective failed (see $out/speedup-$collective.md)" >&2
  done
fi
echo "backends.sh: table in $table"
cat "$table"
