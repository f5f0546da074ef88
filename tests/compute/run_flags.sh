#!/usr/bin/env bash
# The run flags every program shares: --samples, --tag and -N 2 give per-iteration samples in
# every row, the tag in the context and two cycles of rows; --inject-slowdown is recorded. usage: run_flags.sh BIN_DIR PROGRAM ARGS...
set -uo pipefail
bin_dir=$1 program=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $program $*"; exit 1; }
report="$work/report.json"
"$bin_dir/$program" "$@" -n 3 -w 1 --samples --tag flavour=vanilla -N 2 --inject-slowdown 50 -J "$report" >"$work/stdout" 2>"$work/stderr" ||
  { cat "$work/stderr"; fail "exit $?"; }
rows=$(jq '.results | length' "$report")
first=$(jq '[.results[] | select(.cycle == 1)] | length' "$report")
second=$(jq '[.results[] | select(.cycle == 2)] | length' "$report")
sampled=$(jq '[.results[] | select((.samples_us | length) == 3)] | length' "$report")
[ "$rows" -gt 0 ] && [ "$first" -eq "$second" ] && [ $((first + second)) -eq "$rows" ] ||
  fail "want two equal cycles of rows: $rows rows, $first in cycle 1, $second in cycle 2"
[ "$sampled" -eq "$rows" ] || fail "$sampled of $rows rows have 3 samples"
[ "$(jq -r '.context.tags.flavour' "$report")" = vanilla ] || fail "the tag is not in the report"
[ "$(jq '.context.options.inject_slowdown_percent' "$report")" = 50 ] || fail "--inject-slowdown 50 is not in the report"
[ "$(jq -r '.status' "$report")" = complete ] || fail "the report is not complete"
echo "ok: $rows rows in 2 cycles, samples, tag and injected slowdown kept"
