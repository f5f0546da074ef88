#!/usr/bin/env bash
# mpirun wrapper: on rank $SLOW_RANK, starts a CPU-bound loop that inherits the rank's core binding
# and runs it under SCHED_FIFO where allowed: with sched_autogroup (Debian's default) a CFS loop's
# nice value only weighs within its session, and the session's share then also starves rank 0.
# The loop is duty-cycled, busy 15 ms then asleep 5 ms, so the rank keeps about a quarter of its
# core: 4x slow, well past envcheck's 1.5x, where a loop that never sleeps left it the kernel's
# RT-throttling remainder (about 4 %, 25x slow) and the test took 15-18 s instead of 4-6 s.
# Then runs the program.
# usage (under mpirun): competitor_on_rank.sh PROGRAM ARGS...
set -u
busy=""
if [ "${OMPI_COMM_WORLD_RANK:-0}" = "${SLOW_RANK:-1}" ]; then
  # EPOCHREALTIME without its point: microseconds.
  # shellcheck disable=SC2016  # expanded by the loop's bash
  loop='while :; do end=$(( ${EPOCHREALTIME/./} + 15000 )); while (( ${EPOCHREALTIME/./} < end )); do :; done; sleep 0.005; done'
  if chrt -f 1 true 2>/dev/null; then
    chrt -f 1 bash -c "$loop" &
  else
    bash -c "$loop" &
  fi
  busy=$!
  sleep 0.2
fi
"$@"
status=$?
[ -n "$busy" ] && kill "$busy" 2>/dev/null
exit $status
