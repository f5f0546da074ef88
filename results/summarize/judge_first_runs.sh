#!/usr/bin/env bash
# What `collbench ab --max-runs N` would have said, from ab folders made with a larger --max-runs
# (measure_inject.sh with MAX_RUNS above N): ab's looks up to N runs are the same under either cap,
# so a comparison that stopped within N keeps its exit code, and one that went past N is judged on
# its first N pairs (collbench compare --paired, the defaults ab uses). Prints one line per kind:
# comparisons, exit 1 within N runs, and exit 1 at the end. usage:
#   results/summarize/judge_first_runs.sh BIN_DIR WORK/ab N
set -u
bin="$1"; ab="$2"; cap="$3"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
while read -r kind index code runs _; do
  [ "$kind" = kind ] && continue
  [ "$runs" = failed ] && { echo "$kind $index failed"; continue; }
  within=$code
  if [ "$runs" -gt "$cap" ]; then
    rm -rf "$scratch/A" "$scratch/B"; mkdir -p "$scratch/A" "$scratch/B"
    for k in $(seq 1 "$cap"); do
      ln -s "$ab/$kind$index/A/run-$k.json" "$scratch/A/run-$k.json"
      ln -s "$ab/$kind$index/B/run-$k.json" "$scratch/B/run-$k.json"
    done
    "$bin/collbench" compare --paired "$scratch/A" "$scratch/B" > /dev/null 2>&1
    within=$?
  fi
  echo "$kind $index $within $code"
done < "$ab/results.txt" | awk -v cap="$cap" '
  $3 == "failed" { next }
  { n[$1]++; if ($3 == 1) w[$1]++; if ($4 == 1) e[$1]++ }
  END { printf "| comparison | count | exit 1 within %d runs | exit 1 at the end |\n|---|---|---|---|\n", cap
        for (k in n) printf "| %s | %d | %d | %d |\n", k, n[k], w[k], e[k] }'
