#!/usr/bin/env bash
# The bad-usage exit path under load (issue 64: `mpirun -np 2 all_reduce_perf -b 0 -e 0` ended once
# with 139 instead of 2). RUNS launches of each bad command line below at 2 ranks through
# scripts/mpirun-local.sh, with LOAD busy processes beside them; every launch must end with exit 2
# and exactly one "error:" line on stderr. Refused before MPI starts (-b 0 -e 0, an unknown flag) and
# after (a rank that is not in the world, a report folder that does not exist): the two ways two
# ranks leave at once. Prints a line per command line (exit codes seen, how often) and the first
# failing launch's output; the logs of failures stay in OUT.
#
#   results/reliability/exit_path_stress.sh BIN_DIR [RUNS] [LOAD] [OUT] | tee results/reliability/<date>-exit-path/runs.txt
#   (the full measurement: RUNS 300, LOAD 4 on 2 cores; a check that it works: RUNS 5)
#
# Exit 0 when every launch ended as it must, 1 otherwise, 2 on bad usage.
set -uo pipefail
program=exit_path_stress.sh
[ $# -ge 1 ] && [ $# -le 4 ] || { echo "usage: $0 BIN_DIR [RUNS] [LOAD] [OUT]" >&2; exit 2; }
bin=$1 runs=${2:-300} load=${3:-4}
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
for value in "$runs" "$load"; do
  [[ $value =~ ^[0-9]{1,5}$ ]] || { echo "$program: error: RUNS and LOAD must be whole numbers (got '$value')" >&2; exit 2; }
done
[ -x "$bin/all_reduce_perf" ] || { echo "$program: error: no $bin/all_reduce_perf" >&2; exit 2; }
out=${4:-$(mktemp -d)}
mkdir -p "$out" || exit 2
commands=(
  "all_reduce_perf -b 0 -e 0"
  "all_reduce_perf --no-such-flag"
  "all_reduce_perf -b 8 -e 8 --inject-slowdown-rank 5"
  "all_reduce_perf -b 8 -e 8 -J $out/no-such-folder/r.json"
)
spinners=()
stop_load() { local pid; for pid in "${spinners[@]}"; do kill "$pid" 2>/dev/null; done; }
trap stop_load EXIT
for ((i = 0; i < load; i++)); do (while :; do :; done) & spinners+=($!); done

failures=0
for command in "${commands[@]}"; do
  declare -A codes=()
  for ((run = 1; run <= runs; run++)); do
    # shellcheck disable=SC2086  # the command line's words
    "$root/scripts/mpirun-local.sh" -np 2 "$bin"/$command >"$out/stdout" 2>"$out/stderr"
    code=$?
    codes[$code]=$(( ${codes[$code]:-0} + 1 ))
    lines=$(grep -c 'error:' "$out/stderr")
    if [ "$code" -ne 2 ] || [ "$lines" -ne 1 ]; then
      failures=$((failures + 1))
      name="$out/failure-$failures"
      { echo "\$ mpirun -np 2 $command   (run $run: exit $code, $lines error line(s))"; cat "$out/stdout" "$out/stderr"; } >"$name.log"
      [ "$failures" -eq 1 ] && { echo "first failure:"; head -30 "$name.log"; }
    fi
  done
  seen=""
  for code in "${!codes[@]}"; do seen+=" exit $code x ${codes[$code]}"; done
  echo "$command: $runs runs,$seen"
  unset codes
done
echo "$failures failing launch(es) of $((runs * ${#commands[@]})), load $load beside them, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%M:%SZ); logs in $out"
[ "$failures" -eq 0 ]
