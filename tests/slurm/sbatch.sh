#!/usr/bin/env bash
# A small suite as a batch job: sbatch --wait of a job script that runs three collectives through
# srun and writes a report each; the job's exit code is sbatch's. Beside it, the same script with a
# failing step must make its job, and its sbatch --wait, fail. The two jobs run at once: sbatch
# --wait asks after its job at growing intervals (2 s, then longer), so a job of a few seconds
# costs about 10 s of waiting, and one after the other the two took 20 s.
# usage: sbatch.sh SOURCE_DIR BIN_DIR STATE_DIR
set -uo pipefail
# shellcheck source=tests/slurm/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cat >suite.sbatch <<JOB
#!/bin/bash
#SBATCH --job-name=collbench-suite
#SBATCH --ntasks=2
#SBATCH --output=$work/job-%j.out
set -u
failures=0
for collective in all_reduce broadcast alltoall; do
  srun --mpi=pmix "$bin_dir/\${collective}_perf" -b 8 -e 64K -f 8 -n 2 -w 1 -J "\${REPORT_DIR:-$work}/\$collective.json" \${EXTRA_ARGS:-} ||
    failures=\$((failures + 1))
done
exit \$failures
JOB
# The failing job (bad usage, exit 2 on every rank), in the background, its reports (none are
# expected) in a folder of its own.
mkdir -p failing
timeout 200 env EXTRA_ARGS="-d float128" REPORT_DIR="$work/failing" sbatch --wait --parsable suite.sbatch >job2.id 2>sbatch2.err &
failing_sbatch=$!
timeout 200 sbatch --wait --parsable suite.sbatch >job.id 2>sbatch.err
status=$?
job=$(cat job.id)
[ "$status" -eq 0 ] || fail "sbatch --wait exited $status for job $job: $(cat sbatch.err; cat job-*.out)"
for collective in all_reduce broadcast alltoall; do
  "$bin_dir/check_report" "$collective.json" --benchmark "$collective" --world-size 2 >check.txt 2>&1 || fail "$(cat check.txt)"
  jq -e --arg job "$job" '.context.scheduler.job_id == $job and .context.scheduler.batch_command != null' "$collective.json" >/dev/null ||
    fail "$collective.json does not name batch job $job: $(jq -c .context.scheduler "$collective.json")"
done
grep -q "Out of bounds values" "job-$job.out" || fail "no table in the job's output"
# A step that fails (bad usage, exit 2 on every rank) fails the job, and sbatch --wait says so.
wait "$failing_sbatch"
status=$?
[ "$status" -ne 0 ] || fail "a job whose steps failed gave sbatch --wait exit 0"
[ "$status" -ne 124 ] || fail "the failing job hung"
echo "ok: batch job $job ran 3 collectives (checked, reports name the job); a failing job $(cat job2.id) gave exit $status"
