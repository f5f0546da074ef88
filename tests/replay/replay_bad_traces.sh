#!/usr/bin/env bash
# replay_perf on bad traces at 2 ranks under mpirun: each one line on stderr naming the file and
# the line or key, exit 2 on every rank (tests/mpi/each_rank_exit.sh), found before the first
# call: truncated, endless, a count that overflows, a rank outside its group, ranks whose
# sequences disagree, a trace for more ranks than launched, two ranks that both send first in
# separate exchanges (a hang as replay_perf waits for each), --gaps trace without timestamps, and
# a trace's escape sequence (never reaches the terminal), --scale that cannot be; then -c catching
# a corrupted receive (exit 3).
# usage: replay_bad_traces.sh BIN_DIR DATA_DIR
set -uo pipefail
bin=$1 data=$2
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../mpi/each_rank_exit.sh"
source "$here/bad_trace_files.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

expect_bad() {  # NAME EXPECTED_TEXT REPLAY_ARGS...
  local name=$1 expected=$2 problem
  shift 2
  mkdir -p "$work/$name"
  problem=$(bad_input_problem "$work/$name" 2 2 "$bin/replay_perf" "$@" -n 1 -w 0)
  if [ -n "$problem" ] || ! grep -qF -- "$expected" "$work/$name/stderr" || grep -q $'\x1b' "$work/$name/stderr"; then
    echo "FAIL $name: ${problem:-the line does not say '$expected'}"; cat "$work/$name/stderr"
    failures=$((failures + 1))
  else
    echo "ok   $name: $(cat "$work/$name/stderr")"
  fi
}

# A synthetic NCCL 2.28 log of RANKS ranks (one file), each rank's calls as given: "Name count peer".
nccl_log() {  # FILE RANKS CALL...
  local file=$1 ranks=$2 rank call
  shift 2
  : >"$file"
  for ((rank = 0; rank < ranks; rank++)); do
    echo "h:$rank:1 [0] NCCL INFO ncclCommInitRankConfig comm 0x$rank rank $rank nranks $ranks cudaDev 0 nvmlDev 0 busId 1000 commId 0xabc - Init COMPLETE" >>"$file"
  done
  for call in "$@"; do
    read -r rank name count peer <<<"$call"
    echo "h:$rank:1 [0] NCCL INFO $name: opCount 0 sendbuff 0x7f00 recvbuff 0x7f00 count $count datatype 7 op 0 root $peer comm 0x$rank [nranks=$ranks] stream 0x9" >>"$file"
  done
}

write_bad_traces "$data" "$work"
expect_bad truncated "truncated.json: not a Kineto trace JSON file" --trace "$work/truncated.json"
expect_bad endless "line 1 is longer than the 16 MiB cap" --trace /dev/zero
expect_bad count_overflow "overflow.log:2: count 18446744073709551616 does not fit in 64 bits" --trace "$work/overflow.log"
expect_bad rank_outside_group "root or peer 1 is outside its group of 1" --trace "$work/outside.rank0.kineto.json"
expect_bad ranks_disagree "rank 0's send of 256 float32 peer 1" \
  --trace "$data/torch/pipeline.rank0.kineto.json" --trace "$work/disagree.rank1.kineto.json"
nccl_log "$work/four.log" 4 "0 AllReduce 1024 0" "1 AllReduce 1024 0" "2 AllReduce 1024 0" "3 AllReduce 1024 0"
expect_bad more_ranks_than_launched "the trace is for 4 ranks, but 2 were launched" --trace "$work/four.log"
# Each sends first, then receives, one call apart: eager sends let the job through, a replay that
# waits for each exchange would hang.
nccl_log "$work/both_send.log" 2 "0 Send 1048576 1" "1 Send 1048576 0" "0 AllReduce 8 0" "1 AllReduce 8 0" \
  "0 Recv 1048576 1" "1 Recv 1048576 0"
expect_bad both_send_first "the sequences wait on each other as replay_perf issues them" --trace "$work/both_send.log"
nccl_log "$work/two.log" 2 "0 AllReduce 1024 0" "1 AllReduce 1024 0"
expect_bad gaps_without_timestamps "--gaps trace needs the calls' timestamps" --trace "$work/two.log" --gaps trace
expect_bad escaped "escape.log:1: communicator line with rank '9' of nranks '2'" --trace "$work/escape.log"
expect_bad no_trace "--trace FILE is required" --backend mpi
expect_bad bad_gaps "unknown gaps mode 'sometimes' for --gaps" --trace "$work/two.log" --gaps sometimes
# --scale: a pipeline's sends cannot shrink to one rank; more ranks than launched.
pipeline=(--trace "$data/torch/pipeline.rank0.kineto.json" --trace "$data/torch/pipeline.rank1.kineto.json")
expect_bad scale_below_pairs "--scale 1 is below the trace's 2 ranks, and its send between ranks 0 and 1 is not on the whole world" \
  "${pipeline[@]}" --scale 1
expect_bad scale_above_launched "--scale 4 asks for more ranks than the 2 launched" "${pipeline[@]}" --scale 4
expect_bad bad_scale_counts "unknown counts 'all' for --scale-counts (use per-rank or total)" "${pipeline[@]}" --scale 2 --scale-counts all

# -c checks what each receive got against its sender's inputs: one corrupted element on the rank
# that receives is counted in its recv row, and the run exits 3 (wrong results).
scripts="$here/../../scripts"
timeout 60 "$scripts/mpirun-local.sh" -np 2 "$bin/replay_perf" "${pipeline[@]}" -n 1 -w 0 -c 1 --inject-corrupt-output \
  -J "$work/corrupt.json" >"$work/corrupt.out" 2>&1
status=$?
wrong=$(python3 -c 'import json, sys
rows = json.load(open(sys.argv[1]))["results"]
print(sum(r["wrong"] or 0 for r in rows if r["collective"] == "recv"), sum(r["wrong"] or 0 for r in rows if r["collective"] != "recv"))' \
  "$work/corrupt.json" 2>&1)
if [ "$status" -ne 3 ] || [ "$wrong" != "1 0" ]; then
  echo "FAIL corrupt_receive: exit $status (want 3), wrong in recv and other rows '$wrong' (want '1 0')"; tail -5 "$work/corrupt.out"
  failures=$((failures + 1))
else
  echo "ok   corrupt_receive: exit 3, one wrong element in the recv row"
fi

[ "$failures" -eq 0 ] && echo "replay_perf: every bad trace refused with one line, exit 2 on every rank"
exit $((failures > 0))
