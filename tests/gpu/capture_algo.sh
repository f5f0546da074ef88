#!/usr/bin/env bash
# With --capture-algo every all_reduce row must name the algorithm NCCL chose (RING/LL, ...),
# never "default". At one rank NCCL copies locally and tunes nothing: rows then say "one-rank copy".
# Skips (77) where no CUDA device is visible. usage: capture_algo.sh BIN_DIR
set -uo pipefail
bin_dir=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bin_dir/all_reduce_perf" --backend nccl -b 8 -e 1M -f 32 -n 3 -w 1 -c 1 --capture-algo -J "$work/r.json" \
  >"$work/out" 2>"$work/err"
status=$?
if grep -q "no CUDA device is visible" "$work/err"; then
  echo "SKIP: no CUDA device is visible here"
  exit 77
fi
[ "$status" -eq 0 ] || { echo "FAIL: exit $status"; cat "$work/err"; exit 1; }
if grep -q '"algorithm": "default"' "$work/r.json"; then
  echo "FAIL: some rows say algorithm default although --capture-algo was given"
  grep '"algorithm"' "$work/r.json" | sort | uniq -c
  exit 1
fi
ranks=$(jq '.context.world_size' "$work/r.json")
if [ "$ranks" -eq 1 ] && [ "$(jq -r '[.results[].algorithm] | unique | join(",")' "$work/r.json")" != "one-rank copy" ]; then
  echo "FAIL: one rank, but rows do not say one-rank copy"; exit 1
fi
echo "ok: $(grep -o '"algorithm": "[^"]*"' "$work/r.json" | sort | uniq -c | tr '\n' ' ')"
