#!/usr/bin/env bash
# -T on a compute program: one of 2 matmul_perf ranks stopped (SIGSTOP) mid-run must end the job
# within T plus a few seconds with exit 4 from rank 0's timeout line naming rank 1, and the report
# must stay partial with every completed row and the timeout in its error.
# usage: compute_fault.sh BIN_DIR
set -uo pipefail
bin_dir=$1
timeout_s=4
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work=$(mktemp -d)
victim_pid=""
cleanup() {
  if [ -n "$victim_pid" ] && kill -0 "$victim_pid" 2>/dev/null; then kill -KILL "$victim_pid" 2>/dev/null; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; echo "--- stderr"; cat "$work/stderr"; exit 1; }
report="$work/report.json"
rows() { grep -c '"kind": "gemm"' "$report" 2>/dev/null || echo 0; }

timeout 100 "$here/../../scripts/mpirun-local.sh" -np 2 bash -c \
  '"$@"; code=$?; echo $code > "'"$work"'/exit.${OMPI_COMM_WORLD_RANK:-$RANK}"; exit $code' rank \
  "$bin_dir/matmul_perf" --sizes 16 -n 50 -w 1 -N 100000 --threads 1 -T "$timeout_s" -J "$report" \
  >"$work/stdout" 2>"$work/stderr" &
launcher=$!
for _ in $(seq 1 300); do [ "$(rows)" -ge 2 ] && break; sleep 0.1; done
before=$(rows)
[ "$before" -ge 2 ] || fail "the run never completed two rows"
for pid in $(pgrep -f "$bin_dir/matmul_perf"); do
  if [ "$(readlink "/proc/$pid/exe")" = "$(readlink -f "$bin_dir/matmul_perf")" ] &&
     tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null | grep -qxE "OMPI_COMM_WORLD_RANK=1|RANK=1" &&
     tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q -- "-J $report"; then victim_pid=$pid; fi
done
[ -n "$victim_pid" ] || fail "could not find rank 1's process"
start=$(date +%s)
kill -STOP "$victim_pid"
wait "$launcher"
status=$?
elapsed=$(( $(date +%s) - start ))
echo "SIGSTOP rank 1 after $before rows: mpirun exit $status after ${elapsed}s"
[ "$status" -ne 0 ] && [ "$status" -ne 124 ] || fail "mpirun exit $status"
[ "$elapsed" -lt $(( timeout_s + 12 )) ] || fail "the job took ${elapsed}s to end"
[ "$(grep -c "matmul_perf: timeout: " "$work/stderr")" -eq 1 ] || fail "want one timeout line"
grep "matmul_perf: timeout: " "$work/stderr" | grep -q "did not arrive: 1 (" || fail "the timeout line does not name rank 1"
[ -f "$work/exit.0" ] && { [ "$(cat "$work/exit.0")" = 4 ] || fail "rank 0 exited $(cat "$work/exit.0") (want 4)"; }
grep -q '"status": "partial"' "$report" || fail "the report is not partial"
grep -q '"error": "timeout: ' "$report" || fail "the report does not record the timeout"
[ "$(rows)" -ge "$before" ] || fail "the report lost rows"
echo "ok: $(grep "matmul_perf: timeout: " "$work/stderr")"
