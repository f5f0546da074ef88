#!/usr/bin/env bash
# Every collective under srun --mpi=pmix at 2 and 4 tasks, checks on, inside one allocation (one
# job, 18 steps: a step per program, as MPI direct launch needs). Each report must pass
# check_report and name the Slurm job and step it ran in.
# usage: collectives.sh SOURCE_DIR BIN_DIR STATE_DIR
set -uo pipefail
# shellcheck source=tests/slurm/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
mapfile -t collectives <"$bin_dir/collectives.txt"
cat >steps.sh <<STEPS
set -u
for np in 2 4; do
  for collective in ${collectives[*]}; do
    srun --mpi=pmix -n \$np "$bin_dir/\${collective}_perf" -b 8 -e 64K -f 8 -n 2 -w 1 -c 1 \
      -J "$work/\$collective.np\$np.json" >"$work/\$collective.np\$np.out" 2>&1
    echo "\$collective \$np \$?"
  done
done
STEPS
timeout 240 salloc --quiet -n 4 -J collectives bash steps.sh >codes.txt 2>salloc.err || fail "salloc failed: $(cat salloc.err)"
[ "$(wc -l <codes.txt)" -eq $((2 * ${#collectives[@]})) ] || fail "not every step ran: $(cat codes.txt)"
while read -r collective np code; do
  [ "$code" -eq 0 ] || fail "srun -n $np ${collective}_perf exited $code: $(tail -3 "$collective.np$np.out")"
  report="$collective.np$np.json"
  # alltoallv has no in-place form (as in nccl-tests): its in-place case is a skipped row.
  placements=(); [ "$collective" = alltoallv ] && placements=(--placements out)
  "$bin_dir/check_report" "$report" --benchmark "$collective" --world-size "$np" "${placements[@]}" >check.txt 2>&1 ||
    fail "$report: $(cat check.txt)"
  jq -e '.context.scheduler.name == "slurm" and (.context.scheduler.job_id | test("^[0-9]+$"))
         and (.context.scheduler.step_id | test("^[0-9]+$")) and .context.scheduler.job_node_list != ""
         and (.context.scheduler.srun_command | test("srun --mpi=pmix -n [24] "))
         and .context.versions.mpi != null' "$report" >/dev/null ||
    fail "$report: context.scheduler incomplete: $(jq -c .context.scheduler "$report")"
done <codes.txt
steps=$(jq -r '.context.scheduler.step_id' ./*.json | sort -u | wc -l)
[ "$steps" -eq $((2 * ${#collectives[@]})) ] || fail "expected a distinct step id per run, saw $steps"
echo "ok: ${#collectives[@]} collectives x srun --mpi=pmix -n 2,4 in job $(jq -r .context.scheduler.job_id all_reduce.np2.json)"
