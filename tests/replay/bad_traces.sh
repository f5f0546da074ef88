#!/usr/bin/env bash
# Bad traces through a process (tests/replay/read_trace.cpp): each exits 2 with exactly one line
# on stderr, naming the file, with nothing unescaped from the trace; good ones exit 0.
# usage: bad_traces.sh READ_TRACE DATA_DIR
set -uo pipefail
tool=$1 data=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

expect_bad() {  # NAME EXPECTED_TEXT FILE...
  local name=$1 expected=$2 rc
  shift 2
  "$tool" "$@" >"$work/out" 2>"$work/err"
  rc=$?
  local lines
  lines=$(wc -l <"$work/err")
  if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -qF -- "$expected" "$work/err" || grep -q $'\x1b' "$work/err"; then
    echo "FAIL $name: exit $rc, $lines line(s) on stderr, expected '$expected':"; cat "$work/err"
    failures=$((failures + 1))
  else
    echo "ok   $name: $(cat "$work/err")"
  fi
}

source "$(dirname "${BASH_SOURCE[0]}")/bad_trace_files.sh"
write_bad_traces "$data" "$work"
expect_bad truncated "truncated.json: not a Kineto trace JSON file" "$work/truncated.json"
expect_bad endless "trace '/dev/zero': line 1 is longer than the 16 MiB cap" /dev/zero
expect_bad count_overflow "overflow.log:2: count 18446744073709551616 does not fit in 64 bits" "$work/overflow.log"
expect_bad rank_outside_world "root or peer 1 is outside its group of 1" "$work/outside.rank0.kineto.json"
expect_bad ranks_disagree "rank 0's send of 256 float32 peer 1" "$data/torch/pipeline.rank0.kineto.json" "$work/disagree.rank1.kineto.json"
printf 'h:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 - Init COMPLETE\n' >"$work/one_of_two.log"
expect_bad missing_rank "no calls recorded for rank(s) 1 of the trace's 2" "$work/one_of_two.log"
expect_bad escaped "escape.log:1: communicator line with rank '9' of nranks '2'" "$work/escape.log"

for job in ddp tp pipeline; do
  for format in kineto et; do
    if ! "$tool" "$data/torch/$job.rank0.$format.json" "$data/torch/$job.rank1.$format.json" >"$work/out" 2>&1; then
      echo "FAIL $job $format: a real trace was refused:"; cat "$work/out"; failures=$((failures + 1))
    fi
  done
done
"$tool" "$data/gpu-verify.trace.json" | head -1 | grep -q "format kineto ranks 1 groups 1 calls 9" ||
  { echo "FAIL gpu-verify.trace.json does not read as 9 calls at 1 rank"; failures=$((failures + 1)); }
[ "$failures" -eq 0 ] && echo "bad traces: all refused with one line, real ones read"
exit $((failures > 0))
