#!/usr/bin/env bash
# Every collective in the registry is reachable: the build made its <name>_perf program, lists it
# in bin/collectives.txt (what run-suite.sh runs), and the program runs it at 2 ranks under
# mpirun with checked rows in its report. The list comes from the registry (list_collectives),
# never from this script, so adding a collective needs no edit here.
# usage: every_collective_runs.sh BIN_DIR LIST_COLLECTIVES
set -uo pipefail
bin_dir=$1 list_collectives=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$list_collectives" >"$work/registry" || fail "list_collectives failed"
[ -s "$work/registry" ] || fail "the registry is empty"
diff <(sort "$work/registry") <(sort "$bin_dir/collectives.txt") >"$work/diff" ||
  fail "bin/collectives.txt differs from the registry: $(tr '\n' ' ' <"$work/diff")"
as_root=()
[ "$(id -u)" -eq 0 ] && as_root=(--allow-run-as-root)
ran=0
while read -r name; do
  program="$bin_dir/${name}_perf"
  [ -x "$program" ] || fail "$name is registered but ${name}_perf was not built"
  report="$work/$name.json"
  mpirun "${as_root[@]}" --oversubscribe -np 2 "$program" -b 64 -e 1K -f 4 -n 2 -w 1 -c 1 -J "$report" </dev/null \
    >"$work/$name.out" 2>&1 || fail "${name}_perf exited $?: $(tail -3 "$work/$name.out")"
  python3 - "$report" "$name" <<'PY' || fail "${name}_perf: bad report"
import json, sys
report = json.load(open(sys.argv[1]))
name = sys.argv[2]
assert report["benchmark"] == name, report["benchmark"]
assert report["status"] == "complete", report["status"]
rows = report["results"]
assert len(rows) >= 2, f"{len(rows)} rows"
assert all(row["wrong"] == 0 for row in rows), "wrong results"
assert report["summary"]["rows_checked"] == len(rows), report["summary"]
PY
  ran=$((ran + 1))
  echo "ok: $name ($(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["results"]))' "$report") rows)"
done <"$work/registry"
[ "$ran" -eq "$(wc -l <"$work/registry")" ] || fail "$ran of $(wc -l <"$work/registry") collectives ran"
