#!/usr/bin/env bash
# nccl-tests' long option names, every one at once, at 1 rank without a launcher: the run must
# succeed and its report must hold what the options asked for. usage: nccl_long_options.sh BIN_DIR COLLECTIVE
set -uo pipefail
bin_dir=$1 collective=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL ($collective): $*"; exit 1; }
timeout 60 "$bin_dir/${collective}_perf" --minbytes 8 --maxbytes 64 --stepfactor 2 --iters 2 --warmup_iters 1 --check 1 \
  --op sum --datatype float --root 0 --average 1 --run_cycles 1 --timeout 30 --ngpus 1 --blocking 0 --cudagraph 0 \
  --output_file "$work/r.json" >"$work/stdout" 2>"$work/stderr" || { cat "$work/stderr"; fail "exit $?"; }
python3 - "$work/r.json" "$collective" <<'PY' || fail "report does not match the options"
import json, sys
report = json.load(open(sys.argv[1]))
rows = report["results"]
assert report["status"] == "complete", report["status"]
# 4 sizes (8..64, factor 2) x 2 placements, one cycle. Partitioned collectives have per-rank blocks
# of whole 16 bytes (nccl-tests' rounding): 8 B is raised to 16 B and the duplicate row dropped.
# alltoallv's blocks are 16-byte units too, and it runs out of place only (its in-place case is skipped).
partitioned = sys.argv[2] in ("all_gather", "reduce_scatter", "alltoall", "gather", "scatter", "alltoallv")
placements = 1 if sys.argv[2] == "alltoallv" else 2
sizes = [16, 32, 64] if partitioned else [8, 16, 32, 64]
assert sorted({row["bytes"] for row in rows}) == sizes, [row["bytes"] for row in rows]
assert len(rows) == placements * len(sizes), len(rows)
for row in rows:
    assert row["iterations"] == 2 and row["warmup_iterations"] == 1 and row["check_iterations"] == 1, row
    assert row["dtype"] == "float32" and row["time_aggregation"] == "mean" and row["wrong"] == 0, row
options = report["context"]["options"]
assert options["timeout_s"] == 30 and options["cycles"] == 1 and options["step_factor"] == 2, options
assert options["root"] == 0 and options["ops"] == ["sum"] and options["gpus_per_process"] == 1, options
PY
echo "PASS ($collective): $(grep -c '^ ' "$work/stdout") table lines"
