#!/usr/bin/env bash
# -T under srun with one task stopped (SIGSTOP): the other task must leave with exit 4 within T
# plus a few seconds, and rank 0's report must stay valid and say "partial". srun -K
# (--kill-on-bad-exit) then ends the stopped task: without it srun waits for it forever.
# usage: timeout.sh SOURCE_DIR BIN_DIR STATE_DIR
set -uo pipefail
# shellcheck source=tests/slurm/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
timeout_s=4
timeout 100 srun --mpi=pmix -K -n 2 -J timeout bash -c \
  '"$@"; code=$?; echo $code >"'"$work"'/exit.$SLURM_PROCID"; exit $code' rank \
  "$bin_dir/all_reduce_perf" -b 8 -e 64 -f 2 -n 20000 -w 10 -N 10000 -T "$timeout_s" -J "$work/r.json" \
  >run.out 2>run.err &
launcher=$!
wait_for_rows r.json 2
victim=""
for pid in $(pgrep -f "$bin_dir/all_reduce_perf"); do
  if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "SLURM_PROCID=1" &&
     tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "-J $work/r.json"; then victim=$pid; fi
done
[ -n "$victim" ] || fail "could not find task 1's process"
start=$(date +%s)
kill -STOP "$victim"
wait "$launcher"
status=$?
elapsed=$(($(date +%s) - start))
kill -KILL "$victim" 2>/dev/null
[ "$status" -ne 124 ] || fail "srun hung"
[ "$(cat exit.0 2>/dev/null)" = 4 ] || fail "task 0 exited $(cat exit.0 2>/dev/null || echo '(none)'), expected 4"
[ "$status" -ne 0 ] || fail "srun returned 0"
[ "$elapsed" -le $((timeout_s + 15)) ] || fail "task 0 took ${elapsed}s to leave"
jq -e '.status == "partial" and (.results | length) >= 2' r.json >/dev/null || fail "report not partial with rows: $(head -c 300 r.json)"
"$bin_dir/check_report" r.json --benchmark all_reduce --world-size 2 --status partial >check.txt 2>&1 || fail "$(cat check.txt)"
echo "ok: task 1 stopped after $rows rows; task 0 exit 4, srun exit $status after ${elapsed}s; partial report kept"
