#!/usr/bin/env bash
# One rank stopped (SIGSTOP) or killed (SIGKILL) in the middle of a run with -T: every surviving
# rank must leave within T plus a few seconds, mpirun must fail, one line must name the benchmark,
# the size and the rank that did not arrive, and the report must stay valid: "status": "partial",
# every completed row, and the error when rank 0 detected it.
# usage: fault.sh BIN_DIR STOP|KILL VICTIM_RANK
set -uo pipefail
bin_dir=$1 signal=$2 victim=$3
np=3 timeout_s=4
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work=$(mktemp -d)
victim_pid=""
cleanup() {
  # Only the process this test stopped; mpirun normally reaps it, this is for when it did not.
  if [ -n "$victim_pid" ] && kill -0 "$victim_pid" 2>/dev/null; then kill -KILL "$victim_pid" 2>/dev/null; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL ($signal rank $victim): $*"; echo "--- stderr"; cat "$work/stderr"; echo "--- exits"; grep -H . "$work"/exit.* 2>/dev/null; exit 1; }

report="$work/report.json"
# Each rank runs in a small wrapper that records its own exit code, so the test can see that every
# survivor chose exit 4 rather than being killed by the launcher.
timeout 100 "$here/../../scripts/mpirun-local.sh" -np "$np" bash -c \
  '"$@"; code=$?; echo $code > "'"$work"'/exit.$OMPI_COMM_WORLD_RANK"; exit $code' rank \
  "$bin_dir/all_reduce_perf" -b 8 -e 64 -f 2 -n 20000 -w 10 -N 10000 -T "$timeout_s" -J "$report" \
  >"$work/stdout" 2>"$work/stderr" &
launcher=$!

# Wait for a few completed rows, so there is something the report must keep.
rows=0
for _ in $(seq 1 300); do
  rows=$("$bin_dir/report_probe" "$report" 2>/dev/null | sed -n 's/.* rows=\([0-9]*\).*/\1/p')
  [ "${rows:-0}" -ge 2 ] && break
  sleep 0.1
done
[ "${rows:-0}" -ge 2 ] || fail "the run never completed two rows"

# The victim: the all_reduce_perf process whose environment says it is rank $victim.
for pid in $(pgrep -f "$bin_dir/all_reduce_perf"); do
  if tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$victim" &&
     [ "$(readlink "/proc/$pid/exe")" = "$(readlink -f "$bin_dir/all_reduce_perf")" ] &&
     tr '\0' '\n' < "/proc/$pid/environ" | grep -q "^PWD=" ; then
    if tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q -- "-J $report"; then victim_pid=$pid; fi
  fi
done
[ -n "$victim_pid" ] || fail "could not find rank $victim's process"
start_ms=$(( $(date +%s%N) / 1000000 ))
kill -"$signal" "$victim_pid"
wait "$launcher"
status=$?
elapsed_ms=$(( $(date +%s%N) / 1000000 - start_ms ))
elapsed="$(( elapsed_ms / 1000 )).$(printf %03d $(( elapsed_ms % 1000 )))"
echo "$signal rank $victim (pid $victim_pid) after $rows rows: mpirun exit $status after ${elapsed}s"

[ "$status" -ne 0 ] || fail "mpirun returned 0"
[ "$status" -ne 124 ] || fail "the job hung until the test's own timeout"
# T plus a few seconds (the silence limit and rank 0's grace for the others to leave), generously.
[ "$elapsed_ms" -lt $(( (timeout_s + 12) * 1000 )) ] || fail "the survivors took ${elapsed}s to leave"

probe=$("$bin_dir/report_probe" "$report") || fail "the report on disk is not a valid report: $probe"
echo "report: $probe"
case "$probe" in status=partial*) ;; *) fail "report status is not partial: $probe" ;; esac
final_rows=$(echo "$probe" | sed -n 's/.* rows=\([0-9]*\).*/\1/p')
[ "$final_rows" -ge "$rows" ] || fail "the report lost rows ($final_rows < $rows)"

lines=$(grep -c "all_reduce_perf: timeout: " "$work/stderr")
if [ "$victim" != 0 ]; then
  # Rank 0 is alive and judges for the job: exactly one line, naming the step and the victim.
  [ "$lines" -eq 1 ] || fail "$lines timeout lines (want 1)"
  grep "all_reduce_perf: timeout: " "$work/stderr" | grep -Eq "in all_reduce at [0-9]+ B .*ranks that did not arrive: (.*, )?$victim \(" ||
    fail "the timeout line does not name the step and rank $victim"
  case "$probe" in *"error=timeout: "*"did not arrive: "*"$victim ("*) ;; *) fail "rank 0 did not record the error in the report" ;; esac
else
  # Rank 0 is the victim: each survivor speaks for itself, and every line must blame rank 0. When
  # rank 0 is killed, Open MPI's mpirun may end the survivors before their watchdog speaks.
  if [ "$signal" = STOP ]; then [ "$lines" -ge 1 ] || fail "no timeout line"; fi
  if grep "all_reduce_perf: timeout: " "$work/stderr" | grep -vq "did not arrive: 0 ("; then
    fail "a timeout line does not name rank 0"
  fi
fi
[ "$lines" -eq 0 ] || echo "line: $(grep "all_reduce_perf: timeout: " "$work/stderr" | head -1)"
if [ "$signal" = STOP ]; then
  for rank in $(seq 0 $((np - 1))); do
    [ "$rank" -eq "$victim" ] && continue
    # Rank 0 leaves last, and the launcher may end it before its wrapper writes the code down.
    [ -f "$work/exit.$rank" ] || { [ "$rank" -eq 0 ] && continue; fail "no exit code from rank $rank"; }
    [ "$(cat "$work/exit.$rank")" = 4 ] || fail "rank $rank exited $(cat "$work/exit.$rank") (want 4)"
  done
fi
echo "ok"
