# Sourced by the bad-input tests (tests/mpi/bad_usage.sh, tests/reliability/bad_command.sh).
#
# bad_input_problem WORK NP CODE PROGRAM_PATH [ARGS...]: runs the program on NP ranks through
# scripts/mpirun-local.sh (stdout and stderr to WORK/stdout and WORK/stderr) and prints what went
# wrong, or nothing when mpirun and every rank exited CODE with exactly one "PROGRAM: error: " line.
#
# Why not plain mpirun: once a rank exits non-zero, Open MPI sleeps odls_base_sigkill_timeout
# (1 s) before it ends the ranks still running, and again before SIGKILL: 1-2 s of nothing per
# test, over 140 tests. With the sleep at 0, a rank that failed first would get rank 0 (the one
# that prints the line) ended before it printed. So each rank writes down its own exit code, and a
# failed rank other than 0 then waits, exiting 0 after 10 s at the latest (a rank 0 that hangs
# then fails the test's own timeout); rank 0's exit ends the job, and it is the code mpirun returns.
bad_input_problem() {
  local work=$1 np=$2 code=$3 program_path=$4
  shift 4
  local scripts program status lines rank
  scripts="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../scripts" && pwd)"
  program=$(basename "$program_path")
  # shellcheck disable=SC2016  # expanded by each rank's shell
  OMPI_MCA_odls_base_sigkill_timeout=0 timeout 60 "$scripts/mpirun-local.sh" -np "$np" bash -c '
    work=$1; shift
    "$@"; status=$?
    rank=${OMPI_COMM_WORLD_RANK:-${RANK:-0}}
    echo "$status" > "$work/writing.$rank" && mv "$work/writing.$rank" "$work/exit.$rank"  # whole or absent
    if [ "$rank" != 0 ] && [ "$status" != 0 ]; then exec sleep 10; fi
    exit "$status"' rank "$work" "$program_path" "$@" >"$work/stdout" 2>"$work/stderr"
  status=$?
  lines=$(grep -c "^$program: error: " "$work/stderr")
  [ "$status" -eq "$code" ] || echo "exit $status (want $code)"
  [ "$lines" -eq 1 ] || echo "$lines error lines (want 1)"
  [ -f "$work/exit.0" ] || echo "rank 0 left no exit code"
  # Every other rank that got to write its code (rank 0's exit may end one still on its way).
  for rank in $(seq 0 $((np - 1))); do
    if [ -f "$work/exit.$rank" ] && [ "$(cat "$work/exit.$rank")" != "$code" ]; then
      echo "rank $rank exited $(cat "$work/exit.$rank") (want $code)"
    fi
  done
}
