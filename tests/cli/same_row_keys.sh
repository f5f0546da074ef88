#!/usr/bin/env bash
# Every program's timed rows say how they were measured under the same keys (report::Measurement,
# written by one writer): each program runs at 2 ranks under real mpirun with -n 3 -w 2 -c 1 -N 2
# --samples, and every row must hold cycle 1 and 2, iterations 3 (pt2pt: -n given), warmup 2,
# time_us with p10, a timing text, a timestamp, check_iterations and wrong that agree, and one
# sample per iteration (comm_init: per iteration and member). usage: same_row_keys.sh BIN_DIR SMALL_MODEL_CSV TORCH_TRACES_DIR
set -uo pipefail
bin_dir=$1
model=$2 traces=$3
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
loop=(-n 3 -w 2 -c 1 -N 2 --samples)

run() {  # NAME PROGRAM ARGS...: writes $work/NAME.json
  local name=$1 program=$2
  shift 2
  if ! timeout 200 "$here/../../scripts/mpirun-local.sh" -np 2 --bind-to none "$bin_dir/$program" "$@" "${loop[@]}" \
      -J "$work/$name.json" >"$work/$name.out" 2>&1; then
    echo "FAIL: $program $*: $(tail -3 "$work/$name.out")"
    failures=$((failures + 1))
  fi
}

run all_reduce all_reduce_perf -b 8 -e 64 -f 8
run alltoallv alltoallv_perf -b 64 -e 64 --pattern zipf:1.2
run matmul matmul_perf --sizes 16 --threads 1
run membw membw_perf -b 64K -e 64K --threads 1
run copy copy_perf --host-only -b 8 -e 64 -f 8
run pt2pt pt2pt_perf --sizes 8,64
run comm_init comm_init_perf
run ddp ddp_step_perf --model "$model" --batch 2 --bucket-mb 1
run replay replay_perf --trace "$traces/pipeline.rank0.kineto.json" --trace "$traces/pipeline.rank1.kineto.json"
[ "$failures" -eq 0 ] || exit 1

python3 - "$work" <<'PY'
import glob, json, os, sys
bad = []
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    name = os.path.basename(path)[:-5]
    rows = json.load(open(path))["results"]
    if not rows:
        bad.append(f"{name}: no rows")
    for i, row in enumerate(rows):
        where = f"{name} row {i} ({row.get('kind')})"
        missing = [k for k in ("kind", "cycle", "iterations", "warmup_iterations", "time_us", "timing", "timestamp",
                               "check_iterations", "wrong", "samples_us") if k not in row]
        if missing:
            bad.append(f"{where}: no {', '.join(missing)}")
            continue
        if row["iterations"] != 3 or row["warmup_iterations"] != 2:
            bad.append(f"{where}: iterations {row['iterations']}, warm-up {row['warmup_iterations']}, want 3 and 2")
        if "p10" not in row["time_us"] or not row["time_us"]["min"] <= row["time_us"]["p10"] <= row["time_us"]["max"]:
            bad.append(f"{where}: time_us {row['time_us']}")
        want = 3 * row.get("comm_size", 1)  # comm_init pools the communicator's ranks' samples
        if len(row["samples_us"]) != want:
            bad.append(f"{where}: {len(row['samples_us'])} samples, want {want}")
        if not row["timing"] or not row["timestamp"].endswith("Z"):
            bad.append(f"{where}: timing '{row['timing']}', timestamp '{row['timestamp']}'")
        checked = row["check_iterations"]
        if checked not in (0, 1) or (checked == 1) != (row["wrong"] is not None) or (row["wrong"] or 0) != 0:
            bad.append(f"{where}: check_iterations {checked}, wrong {row['wrong']}")
    cycles = sorted({row.get("cycle") for row in rows})
    if cycles != [1, 2]:
        bad.append(f"{name}: cycles {cycles}, want [1, 2]")
    # Every kind with a check ran it; comm_init has none; replay's sequence row has its check in the
    # bucket rows, and a send is checked where it is received.
    unchecked = [row for row in rows if not (name == "replay" and row.get("collective") in ("sequence", "send", "barrier"))]
    if name != "comm_init" and not all(row.get("check_iterations") == 1 for row in unchecked):
        bad.append(f"{name}: a row without its check")
for line in bad:
    print("FAIL:", line)
if bad:
    sys.exit(1)
print("every program's rows hold the same measurement keys")
PY
