#!/usr/bin/env bash
# collbench sweep --launcher 'srun --mpi=pmix -K --ntasks-per-node=2' --np 2,4,8: 1, 2 and 4 nodes,
# every point a checked report on np/2 nodes, and a scaling table with a row per world size.
# usage: nodes_sweep.sh SOURCE_DIR BIN_DIR STATE_DIR
set -uo pipefail
# shellcheck source=tests/slurm/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
run_sweep() {
  timeout 100 "$bin_dir/collbench" sweep --launcher 'srun --mpi=pmix -K --ntasks-per-node=2' --np 2,4,8 --out "$work/sweep" -- \
    "$bin_dir/all_reduce_perf" -b 8 -e 64K -f 64 -n 2 -w 1 -c 1 -T 60 >sweep.out 2>&1
}
# A point whose step Open MPI's wire-up killed (wireup_crash) runs again, up to wireup_reruns times:
# the same sweep command resumes, keeping the points that completed. Any other failure is the sweep's.
resumed=0
until run_sweep; do
  code=$?
  crashed=""
  for log in sweep/*.log; do [ -f "$log" ] && wireup_crash "$log" && crashed="$crashed ${log#sweep/}"; done
  # A failed point's own log goes with the failure: the sweep's output names only its exit code.
  [ -n "$crashed" ] || fail "sweep exited $code$([ "$resumed" -gt 0 ] && echo " after resuming $resumed time(s)"): $(tail -20 sweep.out)
$(for log in sweep/*.log; do grep -q . "$log" 2>/dev/null && { echo "--- $log"; tail -15 "$log"; }; done)"
  [ "$resumed" -lt "$wireup_reruns" ] || fail "Open MPI's TCP wire-up failed in$crashed after resuming $resumed times: $(tail -20 sweep.out)"
  resumed=$((resumed + 1))
  echo "note: Open MPI's TCP wire-up failed in$crashed (kept as sweep.out.$resumed); the sweep resumes"
  mv sweep.out "sweep.out.$resumed"
  for log in $crashed; do mv "sweep/$log" "sweep/$log.$resumed"; done
done
for np in 2 4 8; do
  report=$(ls sweep/*np"$np"*.json 2>/dev/null | head -1)
  [ -n "$report" ] || fail "no report for np $np in $(ls sweep)"
  "$bin_dir/check_report" "$report" --benchmark all_reduce --world-size "$np" >check.txt 2>&1 || fail "$(cat check.txt)"
  "$bin_dir/report_hosts" "$report" --expect $((np / 2)) >hosts.txt || fail "np $np: $(cat hosts.txt)"
  grep -Eq "^\| *[0-9]+ *\| *$np *\|" sweep/scaling.md || fail "scaling.md has no row for $np ranks: $(cat sweep/scaling.md)"
done
echo "ok: sweep over srun --ntasks-per-node=2 at 2, 4, 8 ranks (1, 2, 4 nodes):"
cat sweep/scaling.md
