#!/usr/bin/env bash
# srun --mpi=none -n 4: no MPI variables, so each task takes RANK from SLURM_PROCID, WORLD_SIZE
# from SLURM_NTASKS and the store's host from the step's first node, meets the others in the TCP
# store and runs gloo without MPI_Init. The reports must be 4-rank reports from one world (not 4
# one-rank worlds) with the Slurm job in context.
# usage: no_mpi.sh SOURCE_DIR BIN_DIR STATE_DIR
set -uo pipefail
# shellcheck source=tests/slurm/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
for collective in all_reduce alltoall; do
  timeout 100 srun --mpi=none -n 4 "$bin_dir/${collective}_perf" --backend gloo -b 8 -e 64K -f 8 -n 2 -w 1 \
    --placement out -T 60 -J "$work/$collective.json" >"$collective.out" 2>&1 ||
    fail "srun --mpi=none ${collective}_perf exited $?: $(tail -5 "$collective.out")"
  "$bin_dir/check_report" "$collective.json" --benchmark "$collective" --world-size 4 --placements out >check.txt 2>&1 ||
    fail "$(cat check.txt)"
  jq -e '.context.backend == "gloo" and .context.versions.control_plane != null and .context.versions.mpi == null
         and .context.scheduler.job_id != null and (.context.ranks | length) == 4' "$collective.json" >/dev/null ||
    fail "$collective.json: not a gloo run over the store: $(jq -c '.context | {backend, versions, scheduler}' "$collective.json")"
done
echo "ok: srun --mpi=none -n 4: gloo over the store, ranks from SLURM_PROCID/SLURM_NTASKS"
