#!/usr/bin/env bash
# scripts/gpu-verify.sh's argument errors and its no-GPU stop: each must end with exit 2 and
# exactly one line on stderr, at once, and write nothing into --out. GPUs are hidden with an empty
# CUDA_VISIBLE_DEVICES, so this holds on a GPU machine too. No build is needed.
# usage: args.sh
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
script="$here/../../scripts/gpu-verify.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/nccl-tests/src" "$work/empty" "$work/full"
touch "$work/nccl-tests/src/Makefile" "$work/full/file"
failures=0

# expect PATTERN ARGS...: exit 2, one stderr line matching PATTERN, within 10 s, OUT untouched.
expect() {
  local pattern=$1; shift
  rm -rf "$work/out"
  local start=$(date +%s)
  CUDA_VISIBLE_DEVICES= timeout 60 bash "$script" "$@" >"$work/stdout" 2>"$work/stderr"
  local code=$? elapsed=$(( $(date +%s) - start )) lines
  lines=$(wc -l < "$work/stderr")
  if [ "$code" -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -q "^gpu-verify.sh: error: .*$pattern" "$work/stderr" ||
     [ "$elapsed" -gt 10 ] || [ -n "$(ls -A "$work/out" 2>/dev/null)" ]; then
    echo "FAIL: $* -> exit $code, $lines stderr lines, ${elapsed}s (want 2, 1 line matching '$pattern', <= 10 s, no output)"
    cat "$work/stderr"
    failures=$((failures + 1))
  else
    echo "ok: $* -> $(cat "$work/stderr")"
  fi
}

nt="$work/nccl-tests"
expect "is required" 
expect "--nccl-tests DIR is required" --out "$work/out"
expect "--out OUT is required" --nccl-tests "$nt"
expect "unknown argument '--bogus'" --nccl-tests "$nt" --out "$work/out" --bogus
expect "--phase is build, test, measure or all, not 'run'" --nccl-tests "$nt" --out "$work/out" --phase run
expect "--phase needs a value" --nccl-tests "$nt" --out "$work/out" --phase
expect "--budget '0' is not a positive number" --nccl-tests "$nt" --out "$work/out" --budget 0
expect "--bundle brings a build" --nccl-tests "$nt" --out "$work/out" --phase build --bundle "$work/empty"
expect "--bundle .* is not a bundle" --nccl-tests "$nt" --out "$work/out" --phase test --bundle "$work/empty"
expect "--sizes '4M,32M' is not MIN,MAX,FACTOR" --nccl-tests "$nt" --out "$work/out" --sizes 4M,32M
expect "--sizes '4X,32M,2' is not MIN,MAX,FACTOR" --nccl-tests "$nt" --out "$work/out" --sizes 4X,32M,2
expect "unknown collective 'allreduce' (collectives: all_gather," --nccl-tests "$nt" --out "$work/out" --collectives all_gather,allreduce
expect "--collectives needs a value" --nccl-tests "$nt" --out "$work/out" --collectives
expect "--test-sizes '8,64M' is not MIN,MAX,FACTOR" --nccl-tests "$nt" --out "$work/out" --test-sizes 8,64M
expect "--repetitions '0' is not a count from 1 to 99" --nccl-tests "$nt" --out "$work/out" --repetitions 0
expect "unknown measure step 'coffee'" --nccl-tests "$nt" --out "$work/out" --steps collectives,coffee
expect "not an nccl-tests source copy" --nccl-tests "$work/empty" --out "$work/out"
expect "is not empty" --nccl-tests "$nt" --out "$work/full"
expect "exists and is not a folder" --nccl-tests "$nt" --out "$work/full/file"
# No GPU: every phase but build stops at once.
for phase in test measure all; do
  expect "no GPU visible .*only --phase build runs without one" --nccl-tests "$nt" --out "$work/out" --phase "$phase"
done
expect "no GPU visible" --nccl-tests "$nt" --out "$work/out" --phase measure --quick
[ "$failures" -eq 0 ] || { echo "$failures case(s) failed"; exit 1; }
echo "all cases ok"
