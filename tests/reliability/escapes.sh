#!/usr/bin/env bash
# Text from a file, the network or the command line on its way to the terminal stays inert on
# every line: progress lines, errors, warnings and notes alike (issue 64). Each printer below is
# fed a terminal escape (CSI, an OSC title, a C1 CSI in UTF-8, a newline that would forge a line);
# none of them may reach stdout or stderr. The tables and report notes have their own test
# (summarize.sweeps.hostile); ab's re-run line is unit.summarize Ab.ProgressLinesEscapeTheReportsText.
# Usage: escapes.sh BIN_DIR
set -u
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
evil=$'\e[2J\e]0;title\a\xc2\x9b31m\nforged'

# Exits 0 when none of the files holds ESC, BEL, a C1 CSI or the forged line's start.
inert() {
  ! grep -q $'\e\|\a\|\xc2\x9b\|^forged' "$@"
}

# A printer's output: $1 names it, the rest is the command (stdout and stderr kept).
check() {
  local what=$1
  shift
  "$@" >"$work/out" 2>"$work/err" </dev/null
  inert "$work/out" "$work/err" || fail "$what: an escape reached the terminal: $(cat -v "$work/out" "$work/err" | head -5)"
  [ -s "$work/out" ] || [ -s "$work/err" ] || fail "$what: printed nothing, so the test proves nothing"
}

# collbench sweep: its progress line names the point's settings, its failure line the folder.
check "sweep progress" "$bin/collbench" sweep --launcher none --env "COLLBENCH_TEST_VALUE=$evil" --out "$work/s" -- false
grep -q '^\[1/1\] np=1 COLLBENCH_TEST_VALUE=?\[2J?\]0;title??31m?forged repeat 1 \.\.\.$' "$work/err" || fail "sweep's progress line: $(cat -v "$work/err")"
grep -q 'COLLBENCH_TEST_VALUE=?\[2J?\]0;title??31m?forged repeat 1 failed' "$work/err" || fail "sweep's failure line: $(cat -v "$work/err")"
# collbench's error line names the file it could not read.
check "collbench error" "$bin/collbench" table "$work/$evil.json"
grep -q '^collbench: error: .*?\[2J' "$work/err" || fail "collbench's error line: $(cat -v "$work/err")"
# A program's error line names the flag's value, and the report path it cannot write.
check "program error" "$bin/all_reduce_perf" -b "$evil"
grep -q '^all_reduce_perf: error: .*?\[2J' "$work/err" || fail "the program's error line: $(cat -v "$work/err")"
check "report path error" "$bin/all_reduce_perf" -b 8 -e 8 -J "$work/$evil/r.json"
# A file's text in a program's error: a compute profile's layer name (one line of the file).
printf 'layer,forward_us,backward_us\n%s,1,1\n' "${evil%$'\n'*}" >"$work/profile.csv"
check "profile error" "$bin/ddp_step_perf" --model linear-1024 --compute-profile "$work/profile.csv" -n 1 -w 0
grep -q "has no layer '?\[2J" "$work/err" || fail "the profile's error line: $(cat -v "$work/err")"
echo "escapes: every printer kept the text inert"
