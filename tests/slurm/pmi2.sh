#!/usr/bin/env bash
# srun --mpi=pmi2: Slurm offers it (srun --mpi=list: pmix, none, cray_shasta, pmi2), but Debian's
# Open MPI 4.1 has no PMI-1/PMI-2 client (ompi_info: pmix ext3x, flux, isolated only), so MPI_Init
# cannot start. The run must fail with a nonzero exit and say why, never run as separate one-rank
# worlds that look fine. (If a later Open MPI accepts PMI-2, the run passes its checks instead.)
# usage: pmi2.sh SOURCE_DIR BIN_DIR STATE_DIR
set -uo pipefail
# shellcheck source=tests/slurm/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
srun --mpi=list >list.out 2>&1
grep -qw pmi2 list.out || fail "this Slurm offers no pmi2 plugin: $(cat list.out)"
timeout 60 srun --mpi=pmi2 -n 2 "$bin_dir/all_reduce_perf" -b 8 -e 1K -f 8 -n 2 -w 1 -J r.json >run.out 2>&1
status=$?
[ "$status" -ne 124 ] || fail "srun --mpi=pmi2 hung"
if [ "$status" -eq 0 ]; then
  "$bin_dir/check_report" r.json --benchmark all_reduce --world-size 2 || fail "pmi2 run passed but its report is not a 2-rank report"
  echo "ok: this Open MPI accepts srun --mpi=pmi2 (2 ranks, checked)"
  exit 0
fi
grep -q "PMI" run.out || fail "srun --mpi=pmi2 failed ($status) without naming PMI"
[ ! -e r.json ] || ! jq -e '.context.world_size == 1' r.json >/dev/null 2>&1 || fail "a one-rank report was written"
echo "ok: srun --mpi=pmi2 refused by this Open MPI (exit $status): $(grep -m1 'PMI' run.out)"
