#!/usr/bin/env bash
# How replay's NCCL log reader scales (issue 61, item 5): generates 2-rank NCCL logs of CALLS calls
# each (NCCL 2.28's line formats, with timestamps; synthetic), reads each with replay_read_trace
# (tests/replay/read_trace.cpp: read, then the agreement check) and prints calls, seconds and peak
# memory per size, with /proc/loadavg. Run it on a quiet machine; the figures go to docs/replay.md.
#
# usage: [BIN=build/bin] scripts/validate/replay_read_scale.sh [CALLS...]   (default: 100000 1000000)
# smoke: scripts/validate/replay_read_scale.sh 1000
# exit: 0 done, 1 a read failed, 2 replay_read_trace missing / bad usage
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN=${BIN:-$here/../../build/bin}
case "${1:-}" in -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
[ -x "$BIN/replay_read_trace" ] || { echo "replay_read_scale: no $BIN/replay_read_trace; build it or set BIN=DIR" >&2; exit 2; }
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100000 1000000)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)  cpu: $(lscpu | grep -m1 'Model name' | sed 's/Model name: *//')  nproc: $(nproc)"
for calls in "${sizes[@]}"; do
  case "$calls" in ''|*[!0-9]*) echo "replay_read_scale: '$calls' is not a number of calls" >&2; exit 2 ;; esac
  python3 - "$calls" "$work/nccl.log" <<'PY'
import sys
calls, path = int(sys.argv[1]), sys.argv[2]
with open(path, "w") as log:
    for rank in range(2):
        log.write(f"node{rank}:{100 + rank}:1 [0] NCCL INFO ncclCommInitRankConfig comm 0x55{rank} rank {rank} "
                  f"nranks 2 cudaDev 0 nvmlDev 0 busId 1 commId 0xabc - Init COMPLETE\n")
    for call in range(calls // 2):
        for rank in range(2):
            log.write(f"[2026-12-07 10:00:{(call % 60000) / 1000:09.6f}] node{rank}:{100 + rank}:1 [0] NCCL INFO "
                      f"AllReduce: opCount {call:x} sendbuff 0x7f00 recvbuff 0x7f00 count {1024 + call % 4096} "
                      f"datatype 7 op 0 root 0 comm 0x55{rank} [nranks=2] stream 0x9\n")
PY
  echo "calls $calls, file $(stat -c %s "$work/nccl.log") bytes: $("$BIN/replay_read_trace" "$work/nccl.log" | tail -1)"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
