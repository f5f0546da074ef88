#!/usr/bin/env bash
# mpirun wrapper: on rank $SLOW_RANK, starts a CPU-bound loop that inherits the rank's core binding
# and runs it under SCHED_FIFO where allowed: with sched_autogroup (Debian's default) a CFS loop's
# nice value only weighs within its session, and the session's share then also starves rank 0.
# The kernel's RT throttling (95% by default) keeps the machine responsive. Then runs the program.
# usage (under mpirun): competitor_on_rank.sh PROGRAM ARGS...
set -u
busy=""
if [ "${OMPI_COMM_WORLD_RANK:-0}" = "${SLOW_RANK:-1}" ]; then
  if chrt -f 1 true 2>/dev/null; then
    chrt -f 1 bash -c 'while :; do :; done' &
  else
    bash -c 'while :; do :; done' &
  fi
  busy=$!
  sleep 0.2
fi
"$@"
status=$?
[ -n "$busy" ] && kill "$busy" 2>/dev/null
exit $status
