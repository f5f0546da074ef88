#!/usr/bin/env bash
# One *_perf run with -B under real mpirun: its exit code, the #bitdiff column, and the report's
# bitdiff fields. EXPECT is "none" (every row bitdiff 0, no first_bitdiff) or "repeats:RANK:ELEMENT"
# / "ranks:RANK:ELEMENT" (every row's first difference of that kind at that rank and element, the
# two values one bit apart; ELEMENT "any": at any element, from any lower reference rank), or "ranks:any" (every row but the smallest differs across ranks, from
# a library, not an injection: no rank or element is predicted).
# usage: run_bitwise.sh BIN_DIR NP COLLECTIVE EXPECTED_EXIT EXPECT -- PERF ARGS...
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../mpi/finalized_exit.sh"
bin_dir=$1 np=$2 collective=$3 expected_exit=$4 expect=$5
shift 5
[ "${1:-}" = "--" ] && shift
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: ${collective}_perf -np $np $*"; tail -n 20 "$work/stdout" "$work/stderr"; exit 1; }
"$here/../../scripts/mpirun-local.sh" -np "$np" "$bin_dir/${collective}_perf" "$@" -J "$work/report.json" \
  >"$work/stdout" 2>"$work/stderr" </dev/null
status=$?
[ "$status" -eq "$expected_exit" ] || fail "exited $status, expected $expected_exit"
grep -q '#bitdiff' "$work/stdout" || fail "no #bitdiff column in the table"
grep -q '^# Bitwise differences' "$work/stdout" || fail "no bitwise footer line"
python3 - "$work/report.json" "$expect" "$np" <<'PY' || fail "report: see above"
import json, sys
report = json.load(open(sys.argv[1]))
expect, np = sys.argv[2], int(sys.argv[3])
rows = report["results"]
assert rows, "no rows"
repeats = report["context"]["options"]["bitwise_repeats"]
for row in rows:
    where = f'{row["bytes"]} B {row["placement"]}'
    assert row["bitwise_repeats"] == repeats, where
    assert isinstance(row["bitdiff"], int), f'{where}: bitdiff {row["bitdiff"]!r}'
    if expect == "none":
        assert row["bitdiff"] == 0 and "first_bitdiff" not in row, f'{where}: {row["bitdiff"]} {row.get("first_bitdiff")}'
        continue
    if expect == "ranks:any":
        if row["count"] >= 4:
            assert row["bitdiff"] > 0 and [d for d in row["first_bitdiff"] if d["between"] == "ranks"], where
            assert all(d["between"] == "ranks" for d in row["first_bitdiff"]), f'{where}: {row["first_bitdiff"]}'
            assert row["wrong"] == 0, f'{where}: within tolerance, yet not the same bits'
        continue
    kind, rank, element = expect.split(":")
    assert row["bitdiff"] > 0, where
    firsts = [d for d in row["first_bitdiff"] if d["between"] == kind]
    assert len(firsts) == 1, f'{where}: {row["first_bitdiff"]}'
    d = firsts[0]
    assert d["rank"] == int(rank), f'{where}: {d}'
    if element != "any":
        want_element = row["count"] // 2 if element == "middle" else int(element)
        assert d["element"] == want_element, f'{where}: {d}'
    assert int(d["reference_bits"], 16) ^ int(d["bits"], 16) == 1, f'{where}: {d}'
    if kind == "repeats":
        assert d["repeat"] == repeats - 1 and d["reference_repeat"] == 0 and d["reference_rank"] == d["rank"], d
    elif element != "any":
        assert d["reference_rank"] == 0, d
    else:
        assert d["reference_rank"] < d["rank"], d
if expect == "none":
    assert report["summary"]["bitdiff_total"] == 0
else:
    assert report["summary"]["bitdiff_total"] == sum(r["bitdiff"] for r in rows)
PY
echo "ok: ${collective}_perf -np $np $* (exit $status)"
