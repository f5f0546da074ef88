#!/usr/bin/env bash
# One alltoallv_perf run under real mpirun: exit 0, every row checked and right, the report's
# contract (check_report), the traffic the rows record against its closed form (EXPECT), and the
# report read back by `collbench table`, `compare` and `plot` like every other kind.
# EXPECT: uniform, zipf:S, hotspot:K or matrix:FILE (the traffic the run was asked for).
# usage: run_alltoallv.sh BIN_DIR NP EXPECT -- PERF ARGS...
set -uo pipefail
bin_dir=$1 np=$2 expect=$3
shift 3
[ "${1:-}" = "--" ] && shift
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: alltoallv_perf -np $np $*"; tail -n 20 "$work/stdout" "$work/stderr" 2>/dev/null; exit 1; }
"$here/../../scripts/mpirun-local.sh" -np "$np" "$bin_dir/alltoallv_perf" "$@" -J "$work/report.json" \
  >"$work/stdout" 2>"$work/stderr" </dev/null || fail "exited $?"
grep -q "^# traffic " "$work/stdout" || fail "the table does not say where the traffic comes from"
"$bin_dir/check_report" "$work/report.json" --benchmark alltoallv --world-size "$np" --wrong zero --placements out ||
  fail "check_report"
python3 - "$work/report.json" "$expect" "$np" <<'PY' || fail "traffic: see above"
import csv, json, math, sys
report = json.load(open(sys.argv[1]))
expect, n = sys.argv[2], int(sys.argv[3])
rows = report["results"]
assert rows, "no rows"
elements = {"int8": 1, "uint8": 1, "float16": 2, "bfloat16": 2, "int32": 4, "uint32": 4, "float32": 4,
            "int64": 8, "uint64": 8, "float64": 8}
for row in rows:
    t = row["traffic"]
    where = f'{row["bytes"]} B {row["dtype"]}'
    assert row["kind"] == "alltoallv" and row["wrong"] == 0 and row["check_iterations"] >= 1, where
    if n > 1:
        assert abs(row["busbw_gbps"] - row["bytes"] / (row["time_us"]["mean"] * 1e3) * (n - 1) / n) <= 1e-9 * row["busbw_gbps"] + 1e-12, where
    e = elements[row["dtype"]]
    if expect.startswith("matrix:"):
        matrix = [[int(v) for v in r] for r in csv.reader(l for l in open(expect[7:]) if not l.startswith("#"))]
        pairs = [[b // e * e for b in r] for r in matrix]
        assert t["pattern"] == "matrix" and t["matrix_file"] == expect[7:], t
    else:
        total = row["requested_bytes"]
        assert t["pattern"] == expect and t["bytes_per_rank"] == total, t
        if expect == "uniform":
            share = [1 / n] * n
        else:  # the hot receivers are seeded: the shares' multiset is the closed form
            share = None
        if share:
            pairs = [[int(math.floor(total * s)) // 16 * 16 for s in share] for _ in range(n)]
            if max(max(r) for r in pairs) == 0:  # too small for one block: raised to 16 B per rank
                pairs = [[int(math.floor(16 * n * s)) // 16 * 16 for s in share] for _ in range(n)]
        else:
            pairs = None
    if pairs is not None:
        sent = [sum(r) for r in pairs]
        received = [sum(pairs[i][j] for i in range(n)) for j in range(n)]
        assert t["max_send_bytes"] == max(sent) and t["min_send_bytes"] == min(sent), (where, t, sent)
        assert t["max_receive_bytes"] == max(received) and t["min_receive_bytes"] == min(received), (where, t, received)
        assert row["bytes"] == max(sent + received), where
    elif expect.startswith("hotspot:"):
        k = int(expect.split(":")[1])
        hot = int(math.floor(total * (0.5 / k + 0.5 / n))) // 16 * 16
        cold = int(math.floor(total * 0.5 / n)) // 16 * 16
        if hot > 0:
            assert t["max_receive_bytes"] == n * hot and t["largest_pair_bytes"] == hot, (where, t, hot)
            assert t["min_receive_bytes"] == (n * hot if k == n else n * cold), (where, t)
            assert t["max_send_bytes"] == k * hot + (n - k) * cold, (where, t)
    elif expect.startswith("zipf:"):
        s = float(expect.split(":")[1])
        weights = [1 / (p + 1) ** s for p in range(n)]
        hottest = int(math.floor(total * weights[0] / sum(weights))) // 16 * 16
        if hottest > 0:
            assert t["largest_pair_bytes"] == hottest and t["max_receive_bytes"] == n * hottest, (where, t, hottest)
print(f"ok: {len(rows)} rows, traffic {rows[0]['traffic']['pattern']}")
PY
# Every summarizer command reads the kind.
"$bin_dir/collbench" table "$work/report.json" >"$work/table" || fail "collbench table"
python3 - "$work/report.json" "$work/table" <<'PY' || fail "collbench table: not a line a row naming its traffic pattern"
import json, sys
rows = json.load(open(sys.argv[1]))["results"]
lines = [line for line in open(sys.argv[2]) if not line.startswith("#") and line.strip()]
assert len(lines) == len(rows), (len(lines), len(rows))
for line, row in zip(lines, rows):
    assert row["traffic"]["pattern"][:12] in line.split(), (line, row["traffic"]["pattern"])
PY
for run in 1 2 3; do cp "$work/report.json" "$work/base$run.json"; cp "$work/report.json" "$work/new$run.json"; done
mkdir -p "$work/base" "$work/new"
mv "$work"/base?.json "$work/base/"; mv "$work"/new?.json "$work/new/"
"$bin_dir/collbench" compare "$work/base" "$work/new" >"$work/compare" 2>&1 || fail "collbench compare: $(tail -3 "$work/compare")"
grep -q "alltoallv" "$work/compare" || fail "collbench compare names no alltoallv row"
if command -v gnuplot >/dev/null; then
  "$bin_dir/collbench" plot "$work/report.json" --out "$work/plot.png" >"$work/plot" 2>&1 || fail "collbench plot: $(tail -3 "$work/plot")"
  [ -s "$work/plot.png" ] || fail "collbench plot made no picture"
fi
echo "ok: alltoallv_perf -np $np $*"
