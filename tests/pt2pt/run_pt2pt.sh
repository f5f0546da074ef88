#!/usr/bin/env bash
# Runs pt2pt_perf for real, checks its exit code and its report (check_pt2pt_report), then reads
# the report with collbench table, compare and plot as any other kind.
# usage: run_pt2pt.sh BIN_DIR LAUNCH NP EXPECTED_EXIT "CHECK ARGS" -- PT2PT ARGS
#   LAUNCH: mpi (scripts/mpirun-local.sh -np NP) or env (NP processes started with RANK,
#   WORLD_SIZE, MASTER_ADDR and MASTER_PORT, no MPI); EXPECTED_EXIT may be "0|3" (a slow-link
#   verdict on a noisy machine), in which case the report decides which one is right.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../mpi/finalized_exit.sh"
bin_dir=$1 launch=$2 np=$3 expected=$4 check=$5
shift 5
[ "${1:-}" = -- ] && shift
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work=$(mktemp -d)
pids=()
trap 'for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null; done; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; for f in "$work"/out* "$work"/err*; do [ -s "$f" ] && { echo "--- $(basename "$f")"; tail -20 "$f"; }; done; exit 1; }

report="$work/pt2pt.json"
status=0
if [ "$launch" = mpi ]; then
  "$here/../../scripts/mpirun-local.sh" -np "$np" "$bin_dir/pt2pt_perf" "$@" -J "$report" >"$work/out" 2>"$work/err" || status=$?
else
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null ||
    echo $((20000 + RANDOM % 20000)))
  for ((rank = 0; rank < np; rank++)); do
    # Every rank gets the same flags (they agree on them); rank 0 writes the report.
    env RANK="$rank" WORLD_SIZE="$np" LOCAL_RANK="$rank" LOCAL_WORLD_SIZE="$np" MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" \
      timeout 300 "$bin_dir/pt2pt_perf" "$@" -J "$report" >"$work/out.$rank" 2>"$work/err.$rank" &
    pids+=($!)
  done
  for ((rank = 0; rank < np; rank++)); do
    code=0
    wait "${pids[$rank]}" || code=$?
    [ "$rank" -eq 0 ] && status=$code
    [ "$code" -eq "$status" ] || fail "rank $rank exited $code, rank 0 $status: every rank must exit the same way"
  done
  pids=()
  cp "$work/out.0" "$work/out"
fi
case "|$expected|" in
  *"|$status|"*) ;;
  *) fail "pt2pt_perf $* exited $status, want $expected" ;;
esac
slow_links=$(grep -c '"src_host"' "$report" 2>/dev/null)
if [ "$expected" = "0|3" ]; then
  # The verdict and the exit code agree: 3 exactly when the report lists a slow link.
  if [ "$status" -eq 3 ]; then check="$check --slow some"; else check="$check --slow none"; fi
fi
# shellcheck disable=SC2086  # the check arguments are words
"$bin_dir/check_pt2pt_report" "$report" --world-size "$np" $check || fail "report check ($slow_links slow-link entries)"
grep -q '^#.*link' "$work/out" || fail "no live table"
"$bin_dir/collbench" table "$report" >"$work/table" 2>"$work/err.table" || fail "collbench table: $(cat "$work/err.table")"
# The text table is the live one (one renderer): the same row lines, one a row of the report.
diff <(grep -v '^#' "$work/out") <(grep -v '^#' "$work/table") >/dev/null || fail "collbench table differs from the live table"
[ "$(grep -vc '^#' "$work/table")" -gt 0 ] || fail "collbench table printed no rows"
# The table shows what each row measured: its mode, and a latency row's latency (issue 48).
python3 - "$report" "$work/table" <<'PY' || fail "collbench table does not show each row's mode and latency"
import json, sys
rows = json.load(open(sys.argv[1]))["results"]
text = open(sys.argv[2]).read().splitlines()
header = [line for line in text if line.startswith("#")]
lines = [line for line in text if line.strip() and not line.startswith("#")]
assert any(" mode " in h and "lat(us)" in h for h in header), header
assert len(lines) == len(rows), (len(lines), len(rows))
for row, line in zip(rows, lines):
    fields = line.split()
    assert row["mode"] in fields, (row["mode"], line)
    if row["mode"] == "latency":
        assert f'{row["latency_us"]:.2f}' in fields, (row["latency_us"], line)
PY
"$bin_dir/collbench" compare "$report" "$report" --format csv >"$work/compare.csv" 2>"$work/err.compare" ||
  fail "collbench compare: $(cat "$work/err.compare")"
grep -q ',UNKNOWN$' "$work/compare.csv" || fail "collbench compare gave no verdict rows"
"$bin_dir/collbench" plot "$report" --out "$work/plot.svg" --gnuplot /nonexistent/gnuplot >/dev/null 2>"$work/err.plot" ||
  fail "collbench plot: $(cat "$work/err.plot")"
[ -s "$work/plot.dat" ] || fail "collbench plot wrote no data"
if grep -q '"link_matrix"' "$report"; then
  # A matrix report is drawn as its heat map: a block of NP lines of NP values per size.
  grep -q 'matrix with image' "$work/plot.gp" || fail "collbench plot drew no heat map for the link matrix"
  [ "$(awk 'NF' "$work/plot.dat" | head -1 | wc -w)" -eq "$np" ] || fail "heat map data is not $np columns wide"
fi
echo "ok: pt2pt_perf $* ($launch, $np ranks, exit $status)"
