#!/usr/bin/env bash
# Repeats one short run launched without MPI (3 ranks, gloo, -T) many times and counts the runs
# in which any rank did not exit 0: the spurious "rank 0 died" exit 4 at the end of a clean run
# (issue 19) showed up in a few runs out of a hundred. Bounded: RUNS runs, each killed after 60 s.
#
# usage: repeat_env_exit.sh BIN_DIR RUNS [PROGRAM [PERF ARGS...]]
#   default: alltoall_perf --backend gloo -b 1 -e 64K -f 8 -n 2 -w 1 -T 5 -c 1
# Prints "runs=N failures=F" and, for each failure, the ranks' exit codes and stderr; exits 1 when F > 0.
set -uo pipefail
bin_dir=$1 runs=$2
shift 2
program=${1:-alltoall_perf}
[ $# -gt 0 ] && shift
args=("$@")
[ ${#args[@]} -eq 0 ] && args=(--backend gloo -b 1 -e 64K -f 8 -n 2 -w 1 -T 5 -c 1)
world=3
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null ||
    echo $((20000 + RANDOM % 20000))
}
failures=0
for ((run = 1; run <= runs; run++)); do
  port=$(free_port)
  pids=()
  for ((rank = 0; rank < world; rank++)); do
    env RANK=$rank WORLD_SIZE=$world MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
      timeout -s KILL 60 "$bin_dir/$program" "${args[@]}" -J "$work/report.json" --overwrite >"$work/out.$rank" 2>"$work/err.$rank" &
    pids+=($!)
  done
  codes=()
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}"
    codes+=($?)
  done
  pids=()
  if [ "${codes[*]}" != "$(printf '0 %.0s' $(seq $world) | sed 's/ $//')" ]; then
    failures=$((failures + 1))
    echo "run $run: exit codes ${codes[*]}"
    for ((rank = 0; rank < world; rank++)); do
      [ -s "$work/err.$rank" ] && sed "s/^/  rank $rank: /" "$work/err.$rank" | tail -3
    done
  fi
  rm -f "$work/report.json"
done
echo "runs=$runs failures=$failures program=$program args=${args[*]}"
[ "$failures" -eq 0 ]
