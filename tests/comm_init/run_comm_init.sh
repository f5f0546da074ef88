#!/usr/bin/env bash
# comm_init_perf under real mpirun: exit 0, the report's rows and start-up (check_comm_init.py),
# and the report read by `collbench table`, `compare` and `plot` like every other kind.
# usage: run_comm_init.sh BIN_DIR NP METHODS SIZES -- PERF ARGS...
set -uo pipefail
bin_dir=$1 np=$2 methods=$3 sizes=$4
shift 4
[ "${1:-}" = "--" ] && shift
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: comm_init_perf -np $np $*"; tail -n 20 "$work/stdout" "$work/stderr" 2>/dev/null; exit 1; }
"$here/../../scripts/mpirun-local.sh" -np "$np" "$bin_dir/comm_init_perf" "$@" -J "$work/report.json" \
  >"$work/stdout" 2>"$work/stderr" </dev/null || fail "exited $?"
grep -q "^# start-up (launch to the benchmark's first barrier)" "$work/stdout" || fail "no start-up line"
python3 "$here/check_comm_init.py" "$work/report.json" "$np" mpi "$methods" "$sizes" || fail "report"
"$bin_dir/collbench" table "$work/report.json" >"$work/table" || fail "collbench table"
# The text table is the live one (one renderer): the same row lines, one a row of the report.
diff <(grep -v '^#' "$work/stdout") <(grep -v '^#' "$work/table") >/dev/null || fail "collbench table differs from the live table"
[ "$(grep -vc '^#' "$work/table")" -gt 0 ] || fail "collbench table has no rows"
mkdir -p "$work/base" "$work/new"
for run in 1 2 3; do cp "$work/report.json" "$work/base/$run.json"; cp "$work/report.json" "$work/new/$run.json"; done
"$bin_dir/collbench" compare "$work/base" "$work/new" >"$work/compare" 2>&1 || fail "collbench compare: $(tail -3 "$work/compare")"
grep -q "MPI_Comm_split" "$work/compare" || fail "collbench compare names no row"
if command -v gnuplot >/dev/null; then
  "$bin_dir/collbench" plot "$work/report.json" --out "$work/plot.png" >"$work/plot" 2>&1 || fail "collbench plot: $(tail -3 "$work/plot")"
  [ -s "$work/plot.png" ] || fail "collbench plot made no picture"
fi
echo "ok: comm_init_perf -np $np $*"
