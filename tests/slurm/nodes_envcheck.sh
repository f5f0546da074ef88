#!/usr/bin/env bash
# envcheck under srun -N 4 (one task a node) where node4's CPU is shared with busy processes. The
# simulated hosts share this machine's cores, so each task is pinned by taskset: ranks 0-2 share
# core 0 (a third of it each), rank 3 shares core 1 with seven CPU-bound loops (an eighth of it).
# envcheck must exit 3 and name rank 3, and only it, as slow. No real-time priority: the seven
# loops and rank 3 are in one scheduling group, so the share holds with autogroup on or off.
# usage: nodes_envcheck.sh SOURCE_DIR BIN_DIR STATE_DIR
set -uo pipefail
# shellcheck source=tests/slurm/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
[ "$(nproc)" -ge 2 ] || { echo "SKIP: needs 2 cores"; exit 77; }
# shellcheck disable=SC2016  # expanded by the task's bash
pinned='core=0 busy=""
if [ "$SLURM_PROCID" = 3 ]; then
  core=1
  for _ in 1 2 3 4 5 6 7; do taskset -c 1 bash -c "while :; do :; done" & busy="$busy $!"; done
  trap "kill $busy 2>/dev/null" EXIT
fi
taskset -c $core "$@"'
# Another job on the shared machine can load a core for seconds: two attempts.
for attempt in 1 2; do
  rm -f report.json
  timeout 100 srun --mpi=pmix -N 4 -n 4 bash -c "$pinned" rank "$bin_dir/envcheck" --threads 1 --repeats 5 --probe-ms 40 \
    --probe-n 128 --probe-bytes 4M -T 60 -J "$work/report.json" >envcheck.out 2>&1
  status=$?
  if [ "$status" -eq 3 ] &&
     "$bin_dir/check_compute_report" report.json --benchmark envcheck --world-size 4 --slow-ranks 3 >check.txt 2>&1 &&
     jq -e '.context.ranks[3].host == "node4"' report.json >/dev/null; then
    echo "ok: envcheck under srun -N 4 names rank 3 (node4) slow (attempt $attempt)"
    exit 0
  fi
  echo "attempt $attempt: exit $status, expected 3: $(cat check.txt 2>/dev/null)"
done
fail "envcheck never named rank 3 (node4) alone as slow"
