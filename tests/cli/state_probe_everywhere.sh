#!/usr/bin/env bash
# Every timed program records the machine-state probe in its report (docs/report-schema.md,
# context.state_probe): on rank 0's host, between two distinct CPUs (the CPUs of ranks 0 and 1 when
# both are bound to one each), each value a positive number of ns or null where it could not be
# made, and one between each two -N cycles. No value is required to be made: under other jobs' load the probe may give up, and it says
# so with a null. usage: state_probe_everywhere.sh BIN_DIR
set -uo pipefail
bin_dir=$1
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
# NAME NP ARGS...: the smallest run of each program; a report of each kind of row. envcheck may
# also exit 3 (a slow rank, which two ranks on this shared machine can be).
run() {
  local name=$1 np=$2 status
  shift 2
  "$here/../../scripts/mpirun-local.sh" -np "$np" "$bin_dir/$name" "$@" -T 60 -J "$work/$name.json" > "$work/$name.log" 2>&1
  status=$?
  if [ "$status" -ne 0 ] && ! { [ "$name" = envcheck ] && [ "$status" -eq 3 ]; }; then
    echo "FAIL: $name exited $status:"; tail -n 5 "$work/$name.log"; failures=$((failures + 1)); return
  fi
  python3 - "$work/$name.json" "$name" "$np" <<'PY' || failures=$((failures + 1))
import json, os, sys
path, name, np = sys.argv[1], sys.argv[2], int(sys.argv[3])
context = json.load(open(path))["context"]
probe = context.get("state_probe")
problems = []
if not isinstance(probe, dict):
    problems.append("no context.state_probe")
else:
    if probe.get("host") != context["hosts"][0]:
        problems.append(f"host {probe.get('host')!r} is not rank 0's {context['hosts'][0]!r}")
    cpus = probe.get("cpus")
    if len(os.sched_getaffinity(0)) >= 2 and not (isinstance(cpus, list) and len(cpus) == 2 and cpus[0] != cpus[1]):
        problems.append(f"cpus {cpus!r} are not two distinct CPUs")
    for key in ("before_ns", "after_ns"):
        value = probe.get(key, "missing")
        if not (value is None or (isinstance(value, (int, float)) and value > 0)):
            problems.append(f"{key} {value!r} is neither a positive ns nor null")
    # One probe between each two -N cycles (schema 2.6), none with one cycle.
    cycles = context.get("options", {}).get("cycles", 1)
    between = probe.get("between_cycles_ns")
    if not (isinstance(between, list) and len(between) == cycles - 1 and
            all(v is None or (isinstance(v, (int, float)) and v > 0) for v in between)):
        problems.append(f"between_cycles_ns {between!r} is not {cycles - 1} probe(s) between the {cycles} cycle(s)")
print(("FAIL: " if problems else "ok: ") + f"{name} -np {np}: " + ("; ".join(problems) if problems else json.dumps(probe)))
sys.exit(1 if problems else 0)
PY
}
run all_reduce_perf 2 -b 8 -e 64 -n 2 -w 1 -N 3
run alltoallv_perf 2 -b 64 -e 64 -n 2 -w 1
run sendrecv_perf 1 -b 8 -e 8 -n 2 -w 1
run matmul_perf 1 --sizes 32 --threads 1 -n 2 -w 1
run membw_perf 1 -b 64K -e 64K -n 2 -w 1 --threads 1
run copy_perf 1 -b 8 -e 64 -f 8 -n 2 -w 1
run pt2pt_perf 2 --sizes 8 -n 2 -w 1
run comm_init_perf 2 -n 2 -w 1
run ddp_step_perf 2 --model linear-1024 --batch 2 -n 1 -w 0
run envcheck 2 --threads 1 --repeats 2 --probe-ms 5 --probe-n 64
traces="$here/../replay/data/torch"
run replay_perf 2 --trace "$traces/ddp.rank0.kineto.json" --trace "$traces/ddp.rank1.kineto.json" -n 2 -w 1 -N 2
[ "$failures" -eq 0 ] || { echo "state_probe_everywhere: $failures program(s) without a well-formed probe"; exit 1; }
echo "state_probe_everywhere: every program records the probe"
