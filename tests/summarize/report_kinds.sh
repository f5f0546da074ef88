#!/usr/bin/env bash
# Every report kind through collbench, for real. usage: report_kinds.sh SCENARIO BIN_DIR SOURCE_DIR
#   results: every collbench report committed under results/ still reads (collbench table, exit 0)
#   runs:    matmul_perf, membw_perf and copy_perf at tiny sizes, then table, compare and plot on each
set -uo pipefail
scenario=$1 bin=$2 source=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

case "$scenario" in
  results)
    count=0
    while IFS= read -r -d '' file; do
      # results/micro holds google-benchmark JSON of the micro-benchmarks, not collbench reports.
      grep -q '"schema_version"' "$file" || continue
      "$bin/collbench" table "$file" > "$work/out" 2> "$work/err" || fail "collbench table $file: $(cat "$work/err")"
      count=$((count + 1))
    done < <(find "$source/results" -name '*.json' -print0)
    [ "$count" -ge 35 ] || fail "expected at least 35 collbench reports under results/, read $count"
    for dir in cpu-mpi baselines cluster; do
      "$bin/collbench" table "$source/results/$dir" > /dev/null || fail "collbench table results/$dir"
    done
    echo "ok: $count reports under results/ read"
    ;;
  runs)
    # The kind table's lines: its column header (the line naming mean_us) and the rows under it.
    table_lines() { awk '/ mean_us /{on = 1; print; next} on && /^#/{on = 0} on' "$1"; }
    "$bin/matmul_perf" --shapes 32x32x32,48x16x64 -d float32,float64 -n 3 -w 1 --threads 1 -J "$work/matmul.json" > "$work/matmul.live" \
      || fail "matmul_perf"
    "$bin/membw_perf" -b 64K -e 256K -f 4 -n 3 -w 1 --threads 1 -J "$work/membw.json" > "$work/membw.live" || fail "membw_perf"
    CUDA_VISIBLE_DEVICES= "$bin/copy_perf" -b 8 -e 4K -f 8 -n 3 -w 1 -J "$work/copy.json" > "$work/copy.live" || fail "copy_perf"
    for kind in matmul membw copy; do
      report="$work/$kind.json"
      grep -q '"schema_version": "2\.' "$report" || fail "$kind: not a 2.x report"
      "$bin/collbench" table "$report" > "$work/$kind.table" || fail "table $kind"
      # The text table is the live one, drawn by the same renderer: the column header and a line a row.
      table_lines "$work/$kind.live" > "$work/$kind.live.lines"
      table_lines "$work/$kind.table" > "$work/$kind.table.lines"
      diff "$work/$kind.live.lines" "$work/$kind.table.lines" > /dev/null \
        || fail "table $kind is not the live table: $(diff "$work/$kind.live.lines" "$work/$kind.table.lines" | head -4)"
      rows=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["results"]))' "$report")
      [ "$(grep -vc '^#' "$work/$kind.table.lines")" -eq "$rows" ] || fail "table $kind: not one line for each of $rows rows"
      # One run a side: every row UNKNOWN (no spread measured), exit 0.
      "$bin/collbench" compare "$report" "$report" --format csv > "$work/$kind.csv" || fail "compare $kind with itself"
      rows=$(grep -c ',UNKNOWN$' "$work/$kind.csv")
      [ "$rows" -ge 2 ] || fail "compare $kind: $rows UNKNOWN rows"
      "$bin/collbench" plot "$report" --out "$work/$kind.svg" --gnuplot /nonexistent/gnuplot > /dev/null || fail "plot $kind"
      [ -s "$work/$kind.dat" ] || fail "plot $kind wrote no data"
    done
    [ "$(grep -c ',UNKNOWN$' "$work/matmul.csv")" -eq 5 ] || fail "matmul: a verdict per shape and dtype (4) and the whole"
    "$bin/collbench" compare "$work/matmul.json" "$work/membw.json" 2> "$work/err" && fail "matmul against membw compared"
    [ "$(grep -c . "$work/err")" -eq 1 ] || fail "mixed kinds: not one line: $(cat "$work/err")"
    echo "ok: matmul, membw and copy reports tabled, compared and plotted"
    ;;
  *) fail "unknown scenario $scenario" ;;
esac
