#!/usr/bin/env bash
# Slow-rank detection for real: two ranks pinned one per core; with a duty-cycled CPU-bound loop
# pinned to the core of rank 1 that rank gets about a quarter of its core, must be flagged, and
# nothing else must be;
# without the loop no rank may be flagged.
# usage: slow_rank.sh BIN_DIR with-load|without-load
set -uo pipefail
bin_dir=$1 mode=$2
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ "$(nproc)" -lt 2 ]; then echo "SKIP: needs 2 cores"; exit 77; fi
work=$(mktemp -d)
cleanup() { rm -rf "$work"; }
trap cleanup EXIT
run_envcheck() {
  # --bind-to core --map-by core: rank r on core r; the wrapper adds the competitor to rank 1 only.
  "$here/../../scripts/mpirun-local.sh" -np 2 --bind-to core --map-by core -x SLOW_RANK=1 "$@" \
    --threads 1 --repeats 7 --probe-ms 60 --probe-n 192 --probe-bytes 8M -J "$work/report.json" --overwrite \
    >"$work/stdout" 2>"$work/stderr"
}
if [ "$mode" = with-load ]; then
  # A CPU-bound loop on rank 1's core (see competitor_on_rank.sh).
  command=("$here/competitor_on_rank.sh" "$bin_dir/envcheck")
  want_exit=3 want_slow=1
else
  command=("$bin_dir/envcheck")
  want_exit=0 want_slow=none
fi
# Other jobs on a shared machine (pinned MPI ranks of other test suites included) can load one core
# for seconds: up to 3 attempts, each with medians of 7 samples; a detector that never gives the
# expected verdict still fails.
for attempt in 1 2 3; do
  run_envcheck "${command[@]}"; status=$?
  cat "$work/stdout"
  if [ "$status" -eq "$want_exit" ] &&
     "$bin_dir/check_compute_report" "$work/report.json" --benchmark envcheck --world-size 2 --slow-ranks "$want_slow"; then
    echo "ok: $mode: slow ranks = $want_slow (attempt $attempt)"
    exit 0
  fi
  echo "attempt $attempt: exit $status, expected $want_exit"
  sleep 2
done
echo "FAIL: envcheck never gave the expected verdict ($want_slow)"; cat "$work/stderr"; exit 1
