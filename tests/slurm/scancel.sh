#!/usr/bin/env bash
# scancel mid-run: the job's tasks get SIGTERM (then SIGKILL after KillWait), rank 0's report must
# be valid JSON with "status": "partial" and its completed rows, and no task may outlive the job.
# usage: scancel.sh SOURCE_DIR BIN_DIR STATE_DIR
set -uo pipefail
# shellcheck source=tests/slurm/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
timeout 100 srun --mpi=pmix -n 2 -J scancel "$bin_dir/all_reduce_perf" -b 8 -e 64 -f 2 -n 20000 -w 10 -N 10000 \
  -J "$work/r.json" >run.out 2>run.err &
launcher=$!
wait_for_rows r.json 2
job=$(squeue -h -n scancel -o %A | head -1)
[ -n "$job" ] || fail "no job named scancel in squeue"
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
jq -e '.status == "partial" and (.results | length) >= 1' r.json >/dev/null || fail "report not partial with rows: $(head -c 300 r.json)"
"$bin_dir/check_report" r.json --benchmark all_reduce --world-size 2 --status partial >check.txt 2>&1 || fail "$(cat check.txt)"
echo "ok: scancel of job $job after $rows rows: srun exit $status, partial report with $(jq '.results | length' r.json) rows, no process left"
