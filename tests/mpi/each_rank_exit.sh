# Sourced by the bad-input tests (tests/mpi/bad_usage.sh, tests/reliability/bad_command.sh).
#
# launch_recording_exits WORK NP COMMAND [ARGS...]: runs COMMAND on NP ranks through
# scripts/mpirun-local.sh, stdout and stderr to WORK/stdout and WORK/stderr; each rank's own exit
# code goes to WORK/exit.RANK and mpirun's to the variable launch_status.
#
# Why not plain mpirun: once a rank exits non-zero, Open MPI sleeps odls_base_sigkill_timeout
# (1 s) before it ends the ranks still running, and again before SIGKILL: 1-2 s of nothing per
# test, over 140 tests. With the sleep at 0, a rank that failed first would get rank 0 (the one
# that prints the line) ended before it printed. So every rank but 0 writes down its exit code
# and then waits, exiting 0 after 10 s at the latest (a rank 0 that hangs then fails the test's
# own timeout); rank 0's exit ends the job, and it is the code mpirun returns.
launch_recording_exits() {
  local work=$1 np=$2
  shift 2
  local scripts
  scripts="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../scripts" && pwd)"
  # shellcheck disable=SC2016  # expanded by each rank's shell
  OMPI_MCA_odls_base_sigkill_timeout=0 timeout 60 "$scripts/mpirun-local.sh" -np "$np" bash -c '
    work=$1; shift
    "$@"; status=$?
    rank=${OMPI_COMM_WORLD_RANK:-${RANK:-0}}
    echo "$status" > "$work/writing.$rank" && mv "$work/writing.$rank" "$work/exit.$rank"  # whole or absent
    if [ "$rank" != 0 ] && [ "$status" != 0 ]; then exec sleep 10; fi
    exit "$status"' rank "$work" "$@" >"$work/stdout" 2>"$work/stderr"
  launch_status=$?
}

# every_rank_exited WORK NP CODE: whether rank 0 wrote CODE and every other rank that got to write
# its code (rank 0's exit may end one still on its way) wrote CODE too; else says which did not.
every_rank_exited() {
  local work=$1 np=$2 code=$3 rank
  [ -f "$work/exit.0" ] || { echo "rank 0 left no exit code"; return 1; }
  for rank in $(seq 0 $((np - 1))); do
    if [ -f "$work/exit.$rank" ] && [ "$(cat "$work/exit.$rank")" != "$code" ]; then
      echo "rank $rank exited $(cat "$work/exit.$rank") (want $code)"
      return 1
    fi
  done
}
