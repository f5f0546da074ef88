# shellcheck shell=bash disable=SC2034  # the names are used by the tests that source this
# Sourced by the slurm tests: arguments, the local Slurm's client settings, a work folder, fail().
# usage (from a test): . lib.sh SOURCE_DIR BIN_DIR STATE_DIR
source_dir=$1 bin_dir=$2 state_dir=$3
if [ ! -f "$state_dir/env.sh" ]; then
  echo "SKIP: no local Slurm in $state_dir (slurm.up skipped or failed; see its output)"
  exit 77
fi
# shellcheck source=/dev/null
. "$state_dir/env.sh"
if ! timeout 10 sinfo -h -o %T >/dev/null 2>&1; then
  echo "SKIP: the local Slurm in $state_dir does not answer"
  exit 77
fi
# The local node declares 4 CPUs on a 2-core machine, so Open MPI under srun (unlike under mpirun
# --oversubscribe) does not know it is oversubscribed and busy-polls: 4 ranks took 20 ms per
# 8-byte all_reduce instead of 8 us. srun passes the environment on (--export=ALL).
export OMPI_MCA_mpi_yield_when_idle=1
work=$(mktemp -d)
# Tasks run with the submitting folder as their working directory.
cd "$work" || exit 1
test_cleanup() { rm -rf "$work"; }
trap test_cleanup EXIT
fail() {
  echo "FAIL: $*"
  for file in "$work"/*.out "$work"/*.err; do
    [ -f "$file" ] && { echo "--- $file"; tail -20 "$file"; }
  done
  exit 1
}
# wireup_crash OUT: 0 when the step's output OUT shows Open MPI's TCP wire-up failing, not
# collbench. Open MPI 4.1's TCP transport can lose a connect between two simulated hosts under load
# and then crash: exit 139 after its "failed to TCP connect to a peer MPI process" warning (seen
# 2026-11-28 and 2026-12-01 at load average 8), or a task's jump to address (nil) with no warning
# and a backtrace that stops in the signal handler (seen in CI 2026-12-02). A crash whose backtrace
# has a frame in a collbench binary or library is never taken for it; a call through a null
# function pointer in collbench would be, once: the rerun fails the test if it crashes again.
wireup_crash() {
  grep -q "failed to TCP connect to a peer MPI" "$1" && return 0
  grep -q "Failing at address: (nil)" "$1" || return 1
  ! grep -E '\] \[ *[0-9]+\] ' "$1" | grep -qF "$bin_dir/"
}
# How many times a step that Open MPI's wire-up killed (wireup_crash) runs again. One was not enough:
# the 8-rank step of slurm.nodes.sweep crashed there twice in a row on a quiet machine (2026-12-02,
# ctest -j 4, load average 2.7), as CI's slurm.nodes.scancel had once at stop 51.
wireup_reruns=3
# srun_step OUT SRUN_ARGUMENTS...: one step (timeout 100 srun ...) with its output in OUT. A step
# that failed in Open MPI's wire-up (wireup_crash) is not what these tests check, so it runs again,
# up to wireup_reruns times, and the test says so each time. Any other failure is the step's answer.
srun_step() {
  local out=$1 rerun code
  shift
  for rerun in $(seq 0 "$wireup_reruns"); do
    timeout 100 srun "$@" >"$out" 2>&1 && return 0
    code=$?
    [ "$rerun" -lt "$wireup_reruns" ] && wireup_crash "$out" || return "$code"
    echo "note: Open MPI's TCP wire-up failed (exit $code, its output kept in $out.$((rerun + 1))); the step runs again"
    mv "$out" "$out.$((rerun + 1))"
  done
}
# Waits up to 30 s until the report FILE in the work folder holds at least N complete rows (left in
# $rows), or fails.
wait_for_rows() {
  rows_arrived "$1" "$2" "" || fail "the run never completed $2 rows"
}
# rows_arrived FILE N [PID]: 0 once FILE holds N complete rows (left in $rows); 1 after 30 s, or as
# soon as process PID (when given) has ended without them.
rows_arrived() {
  local ended=0
  for _ in $(seq 1 300); do
    [ -n "${3:-}" ] && ! kill -0 "$3" 2>/dev/null && ended=1
    rows=$("$bin_dir/report_probe" "$1" 2>/dev/null | sed -n 's/.* rows=\([0-9]*\).*/\1/p')
    [ "${rows:-0}" -ge "$2" ] && return 0
    [ "$ended" = 1 ] && return 1
    sleep 0.1
  done
  return 1
}
# start_step_until_rows OUT REPORT N SRUN_ARGUMENTS...: starts one step (timeout 100 srun ...) in the
# background, its pid in $launcher and its output in OUT, and waits until REPORT holds N complete
# rows. A step that ends or stalls before them in Open MPI's wire-up (wireup_crash) is stopped and
# started again, up to wireup_reruns times; any other such end fails the test.
start_step_until_rows() {
  local out=$1 report=$2 wanted=$3 rerun
  shift 3
  for rerun in $(seq 0 "$wireup_reruns"); do
    timeout 100 srun "$@" >"$out" 2>&1 &
    launcher=$!
    rows_arrived "$report" "$wanted" "$launcher" && return 0
    if [ "$rerun" = "$wireup_reruns" ] || ! wireup_crash "$out"; then break; fi
    echo "note: Open MPI's TCP wire-up failed before $wanted rows (its output kept in $out.$((rerun + 1))); the step runs again"
    kill -TERM "$launcher" 2>/dev/null
    wait "$launcher" 2>/dev/null
    scancel_named_jobs "$@"
    mv "$out" "$out.$((rerun + 1))"
    rm -f "$report"
  done
  fail "the run never completed $wanted rows"
}
# scancel_named_jobs SRUN_ARGUMENTS...: cancels the jobs named by the arguments' -J, if any, and
# waits up to 10 s for them to leave the queue.
scancel_named_jobs() {
  local name=""
  while [ $# -gt 0 ]; do
    case $1 in -J) name=$2; break ;; esac
    shift
  done
  [ -n "$name" ] || return 0
  scancel -n "$name" 2>/dev/null
  for _ in $(seq 1 100); do
    [ -z "$(squeue -h -n "$name" -o %A)" ] && return 0
    sleep 0.1
  done
}
