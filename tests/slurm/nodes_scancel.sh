#!/usr/bin/env bash
# scancel of a step running on four nodes: every task gets SIGTERM; rank 0's report must keep every
# row completed before it, say "partial", and no task may outlive the job on any node.
# usage: nodes_scancel.sh SOURCE_DIR BIN_DIR STATE_DIR
set -uo pipefail
# shellcheck source=tests/slurm/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
start_step_until_rows run.out r.json 2 --mpi=pmix -N 4 -n 4 -J nodes_scancel "$bin_dir/all_reduce_perf" \
  -b 8 -e 64 -f 2 -n 100 -w 10 -N 10000 -J "$work/r.json"
before=$rows
job=$(squeue -h -n nodes_scancel -o %A | head -1)
[ -n "$job" ] || fail "no job named nodes_scancel in squeue"
scancel "$job"
wait "$launcher"
status=$?
[ "$status" -ne 124 ] || fail "srun hung after scancel"
[ "$status" -ne 0 ] || fail "srun returned 0 after scancel"
for _ in $(seq 1 50); do
  left=$(pgrep -f -- "-J $work/r.json" || true)
  [ -z "$left" ] && break
  sleep 0.2
done
[ -z "$left" ] || fail "processes left after scancel: $left"
"$bin_dir/check_report" r.json --benchmark all_reduce --world-size 4 --status partial >check.txt 2>&1 || fail "$(cat check.txt)"
kept=$(jq '.results | length' r.json)
[ "$kept" -ge "$before" ] || fail "the report kept $kept rows, $before were complete before scancel"
echo "ok: scancel of job $job on $(jq -r .context.scheduler.job_node_list r.json) after $before rows: $kept kept, nothing left"
