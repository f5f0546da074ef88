#!/usr/bin/env bash
# Starts N ranks on this machine without MPI, the way torchrun or a person would: each process
# gets RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR=127.0.0.1 and one free
# MASTER_PORT, so collbench's env bootstrap (no MPI_Init) joins them. For machines with no MPI,
# such as a lent GPU machine; scripts/mpirun-local.sh falls back to it where mpirun is missing.
#
# usage: scripts/launch-local.sh -np N COMMAND [ARGS...]
# Exit code: the first non-zero exit (the others are then ended, as mpirun does), else 0; 2 on bad usage.
# SIGINT/SIGTERM are passed on to every rank.
set -uo pipefail
program=launch-local.sh
[ $# -ge 3 ] && [ "$1" = -np ] || { echo "$program: error: usage: $program -np N COMMAND [ARGS...]" >&2; exit 2; }
ranks=$2
shift 2
[[ $ranks =~ ^[1-9][0-9]{0,3}$ ]] || { echo "$program: error: -np '$ranks' is not a rank count" >&2; exit 2; }

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null ||
    echo $((20000 + RANDOM % 20000))
}
port=$(free_port)
pids=()
forward() { for pid in "${pids[@]}"; do kill -"$1" "$pid" 2>/dev/null; done; }
trap 'forward INT' INT
trap 'forward TERM' TERM
for rank in $(seq 0 $((ranks - 1))); do
  RANK=$rank LOCAL_RANK=$rank WORLD_SIZE=$ranks LOCAL_WORLD_SIZE=$ranks MASTER_ADDR=127.0.0.1 MASTER_PORT=$port "$@" &
  pids+=($!)
done
# Like mpirun: the first rank to exit non-zero gives the exit code, and the ranks still running
# are ended (TERM after 1 s, then KILL after 3 s more; a stopped rank gets KILL at once).
status=0 live=("${pids[@]}")
while [ ${#live[@]} -gt 0 ]; do
  finished=""
  wait -n -p finished "${live[@]}" 2>/dev/null; code=$?
  if [ -z "${finished:-}" ]; then
    # Either a signal was passed on (wait again), or bash reaped a rank while this loop was not
    # waiting (during forward or ps below): `wait -n` then says "no such job" (127) and the rank
    # is gone from the job table, but `wait PID` still returns its saved exit code. (The job
    # table, not kill -0: a reaped rank's PID may already belong to another process.)
    jobs_now=" $(jobs -p | tr '\n' ' ') "
    for pid in "${live[@]}"; do
      if [[ $jobs_now != *" $pid "* ]]; then wait "$pid"; code=$? finished=$pid; break; fi
    done
    [ -n "${finished:-}" ] || continue
  fi
  for i in "${!live[@]}"; do [ "${live[$i]}" = "$finished" ] && unset 'live[i]'; done
  live=("${live[@]}")
  if [ "$code" != 0 ] && [ "$status" = 0 ]; then
    status=$code
    # One second's grace first: ranks given the same bad input fail on their own and each says
    # why, instead of being ended mid-sentence by the first one's TERM.
    (sleep 1; forward TERM; sleep 3; forward KILL) >/dev/null 2>&1 &
    sleeper=$!
    trap 'kill "$sleeper" 2>/dev/null' EXIT  # once every rank is gone, nobody is left to kill
    for pid in "${live[@]}"; do
      [ "$(ps -o stat= -p "$pid" 2>/dev/null | cut -c1)" = T ] && kill -KILL "$pid" 2>/dev/null
    done
  fi
done
exit "$status"
