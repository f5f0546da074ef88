#!/usr/bin/env bash
# collbench sweep --launcher 'srun --mpi=pmix' over --np 1,2,4: every point a checked report from
# its own srun step, and a scaling table (1 -> 2 -> 4 ranks) at the end.
# usage: sweep.sh SOURCE_DIR BIN_DIR STATE_DIR
set -uo pipefail
# shellcheck source=tests/slurm/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
timeout 200 "$bin_dir/collbench" sweep --launcher 'srun --mpi=pmix' --np 1,2,4 --out "$work/sweep" -- \
  "$bin_dir/all_reduce_perf" -b 8 -e 64K -f 8 -n 2 -w 1 >sweep.out 2>&1
status=$?
[ "$status" -eq 0 ] || fail "sweep exited $status: $(tail -20 sweep.out)"
for np in 1 2 4; do
  report=$(ls sweep/*np"$np"*.json 2>/dev/null | head -1)
  [ -n "$report" ] || fail "no report for np $np in $(ls sweep)"
  "$bin_dir/check_report" "$report" --benchmark all_reduce --world-size "$np" >check.txt 2>&1 || fail "$(cat check.txt)"
  jq -e '.context.scheduler.srun_command | test("^srun --mpi=pmix -n [124] ")' "$report" >/dev/null ||
    fail "$report: no srun command in context.scheduler: $(jq -c .context.scheduler "$report")"
done
[ -s sweep/scaling.md ] || fail "no scaling.md"
for np in 1 2 4; do
  grep -Eq "^\| *[0-9]+ *\| *$np *\|" sweep/scaling.md || fail "scaling.md has no row for $np ranks: $(cat sweep/scaling.md)"
done
echo "ok: sweep over srun -n 1,2,4 with a scaling table:"
cat sweep/scaling.md
