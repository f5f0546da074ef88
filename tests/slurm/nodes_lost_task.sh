#!/usr/bin/env bash
# A task lost on one node mid-step: rank 3, alone on node4, is frozen (SIGSTOP) while the step runs
# across four nodes. The ranks elsewhere must leave within -T plus a few seconds, rank 0 with exit 4
# and a valid partial report whose error names rank 3 and node4; srun -K then ends the step.
# (SIGKILL instead of SIGSTOP makes Open MPI 4.1's PMIx error handler race the watchdog under srun:
# rank 0 was seen to die of SIGSEGV in it, so this test freezes the task, as a hung node does.)
# usage: nodes_lost_task.sh SOURCE_DIR BIN_DIR STATE_DIR
set -uo pipefail
# shellcheck source=tests/slurm/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
timeout_s=4
# The wrapper traps SIGTERM (srun -K's end of the step) so that it outlives its task and records
# the task's own exit code; the task gets the signal with its default handling.
start_step_until_rows run.out r.json 2 --mpi=pmix -K -N 4 -n 4 -J lost_task bash -c \
  'trap true TERM; "$@"; code=$?; echo $code >"'"$work"'/exit.$SLURM_PROCID"; exit $code' rank \
  "$bin_dir/all_reduce_perf" -b 8 -e 64 -f 2 -n 100 -w 10 -N 10000 -T "$timeout_s" -J "$work/r.json"
victim=""
for pid in $(pgrep -f "$bin_dir/all_reduce_perf"); do
  if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "SLURMD_NODENAME=node4" &&
     tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "-J $work/r.json"; then victim=$pid; fi
done
[ -n "$victim" ] || fail "could not find node4's task"
start=$(date +%s)
kill -STOP "$victim"
wait "$launcher"
status=$?
elapsed=$(($(date +%s) - start))
kill -KILL "$victim" 2>/dev/null
[ "$status" -ne 124 ] || fail "srun hung"
[ "$status" -ne 0 ] || fail "srun returned 0"
[ "$(cat exit.0 2>/dev/null)" = 4 ] || fail "rank 0 exited $(cat exit.0 2>/dev/null || echo '(none)'), expected 4"
[ "$elapsed" -le $((timeout_s + 15)) ] || fail "rank 0 took ${elapsed}s to leave"
"$bin_dir/check_report" r.json --benchmark all_reduce --world-size 4 --status partial >check.txt 2>&1 || fail "$(cat check.txt)"
jq -e '.context.ranks[3].host == "node4" and (.results | length) >= 2
       and (.error | test("did not arrive: (.*, )?3 \\(.*, on node4\\)"))' r.json >/dev/null ||
  fail "the partial report does not name rank 3 on node4: $(jq -c '{error, rank3: .context.ranks[3].host}' r.json)"
echo "ok: node4's task frozen after $rows rows; rank 0 exit 4, srun exit $status after ${elapsed}s: $(jq -r .error r.json)"
