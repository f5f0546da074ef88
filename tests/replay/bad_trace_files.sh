# Sourced by the bad-trace tests (bad_traces.sh: the readers; replay_bad_traces.sh: replay_perf on
# every rank). write_bad_traces DATA_DIR WORK writes into WORK, from the committed fixtures:
#   truncated.json              the first 10,000 bytes of a Kineto trace
#   overflow.log                an NCCL call whose count does not fit in 64 bits
#   outside.rank0.kineto.json   the pipeline's rank 0 in a world of one: its peer 1 is outside
#   disagree.rank1.kineto.json  the pipeline's rank 1 receiving 512 elements where rank 0 sends 256
#   escape.log                  a communicator line with a terminal escape sequence in it
write_bad_traces() {
  local data=$1 work=$2
  head -c 10000 "$data/gpu-verify.trace.json" >"$work/truncated.json"
  printf 'h:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 1 cudaDev 0 - Init COMPLETE\nh:1:1 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x1 recvbuff 0x1 count 18446744073709551616 datatype 7 op 0 root 0 comm 0x1 [nranks=1] stream 0x2\n' >"$work/overflow.log"
  python3 - "$data/torch/pipeline.rank0.kineto.json" "$work/outside.rank0.kineto.json" <<'PY'
import json, sys
trace = json.load(open(sys.argv[1]))
trace["distributedInfo"]["world_size"] = 1  # rank 0 now sends to rank 1, outside a world of one
json.dump(trace, open(sys.argv[2], "w"))
PY
  python3 - "$data/torch/pipeline.rank1.kineto.json" "$work/disagree.rank1.kineto.json" <<'PY'
import json, sys
trace = json.load(open(sys.argv[1]))
for event in trace["traceEvents"]:  # rank 1 receives 512 elements where rank 0 sends 256
    if event.get("name") == "c10d::recv_":
        event["args"]["Input Dims"][0] = [[16, 32]]
        break
json.dump(trace, open(sys.argv[2], "w"))
PY
  printf 'h:1:1 [0] NCCL INFO comm 0x1\x1b]0;owned\x07 rank 9 nranks 2 cudaDev 0\n' >"$work/escape.log"
}
