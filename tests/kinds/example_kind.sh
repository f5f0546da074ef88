#!/usr/bin/env bash
# The example kind (tests/example_kind: scan_perf), a whole kind in one folder registered by one
# line, so that docs/layout.md "Adding a workload kind" cannot drift from the code:
#   registration  COLLBENCH_KINDS names the folder once, and nothing outside the folder names the kind;
#   run           scan_perf at 2 ranks under mpirun writes a checked report, and collbench reads its rows
#                 through the registration (its own table, its figure and its label), collbench --help names it, and a wrong sum exits 3;
#   guide         every line of the guide's code blocks is a line of the folder's files.
# usage: example_kind.sh SOURCE_DIR BIN_DIR registration|run|guide
set -uo pipefail
source_dir=$1 bin_dir=$2 part=$3
kind_dir=$source_dir/tests/example_kind
fail() { echo "FAIL: $*"; exit 1; }

case $part in
  registration)
    lines=$(grep -cE '^ *tests/example_kind *(#.*)?$' "$source_dir/CMakeLists.txt")
    [ "$lines" = 1 ] || fail "CMakeLists.txt names tests/example_kind on $lines lines, expected the one line of COLLBENCH_KINDS"
    # The kind's names, anywhere but its folder (and this test, and the guide that shows it).
    named=$(grep -rlE 'kScanRows|scan_row_kind|scan_perf|collbench_scan\b' "$source_dir/src" "$source_dir/cmake" "$source_dir/CMakeLists.txt" "$source_dir/bench")
    [ -z "$named" ] || fail "the example kind is named outside its folder: $named"
    echo "ok: the example kind is its folder and one line of COLLBENCH_KINDS"
    ;;
  run)
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    "$source_dir/scripts/mpirun-local.sh" -np 2 "$bin_dir/scan_perf" -b 1K -e 64K -f 4 -n 5 -w 1 -J "$work/scan.json" >"$work/stdout" 2>&1
    status=$?
    [ "$status" = 0 ] || { cat "$work/stdout"; fail "scan_perf exited $status"; }
    "$bin_dir/collbench" table "$work/scan.json" >"$work/table" 2>&1 || { cat "$work/table"; fail "collbench table refused the scan report"; }
    cat "$work/table"
    grep -q 'GB/s' "$work/table" || fail "collbench table printed no GB/s column (the scan kind's table)"
    rows=$(grep -cE '^ *(1024|4096|16384|65536) ' "$work/table")
    [ "$rows" = 4 ] || fail "collbench table printed $rows scan rows, expected 4 (1K to 64K by 4)"
    # Its figure by the name and axis label its spec gives (report/scan_rows.cpp).
    "$bin_dir/collbench" plot "$work/scan.json" --metric gbps --out "$work/scan.svg" >"$work/plot" 2>&1 || { cat "$work/plot"; fail "collbench plot refused the scan kind's figure gbps"; }
    grep -q 'bytes read (GB/s)' "$work/scan.gp" || fail "the plot's script has not the scan kind's axis label"
    # collbench --help names the kinds it reads from the registration, the new one too.
    "$bin_dir/collbench" --help >"$work/help" 2>&1 || { cat "$work/help"; fail "collbench --help failed"; }
    tr '\n' ' ' <"$work/help" | grep -qE 'report kind \([a-z0-9_, ]*\<scan\>' || { cat "$work/help"; fail "collbench --help does not name the scan kind among the kinds it reads"; }
    "$source_dir/scripts/mpirun-local.sh" -np 2 "$bin_dir/scan_perf" -b 1K -e 1K -n 2 -w 0 --inject-corrupt-output >"$work/corrupt" 2>&1
    status=$?
    [ "$status" = 3 ] || { cat "$work/corrupt"; fail "a wrong sum exited $status, expected 3"; }
    echo "ok: scan_perf runs, its report is read through its registration, a wrong sum exits 3"
    ;;
  guide)
    # The cpp and cmake blocks of the section, each line trimmed; "// ..." marks what the guide leaves out.
    guide=$(awk '/^## Adding a workload kind/{on=1; next} /^## /{on=0} on' "$source_dir/docs/layout.md" |
      awk '/^```(cpp|cmake)$/{block=1; next} /^```/{block=0} block' | sed -E 's/^[[:space:]]+//; s/[[:space:]]+$//' | grep -v '^$' | grep -vx '// \.\.\.')
    [ -n "$guide" ] || fail "docs/layout.md \"Adding a workload kind\" shows no cpp or cmake block"
    folder=$(cat "$kind_dir"/*.cpp "$kind_dir"/*.h "$kind_dir"/report/* "$kind_dir"/CMakeLists.txt | sed -E 's/^[[:space:]]+//; s/[[:space:]]+$//')
    missing=0
    while IFS= read -r line; do
      if ! grep -qxF -- "$line" <<< "$folder"; then echo "not in tests/example_kind: $line"; missing=$((missing + 1)); fi
    done <<< "$guide"
    [ "$missing" = 0 ] || fail "$missing line(s) of the guide's code are not the example kind's"
    echo "ok: the guide's $(wc -l <<< "$guide") lines of code are the example kind's"
    ;;
  *) fail "usage: example_kind.sh SOURCE_DIR BIN_DIR registration|run|guide" ;;
esac
