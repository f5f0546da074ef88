#!/usr/bin/env bash
# scripts/ci-perf.sh never loses its baseline (issue 48), nor a folder that is not one (issue 64):
# every bad variable is refused up front
# (exit 2, one line naming it) with the stored baseline untouched; a suite that fails, or that
# writes a report collbench cannot read, leaves the baseline as it was; a good update replaces it
# whole, leaving nothing beside it. The *_perf programs are stand-ins (one copies a fixture report
# to its -J path); collbench is the real one, which checks each report.
# usage: ci_perf_baseline.sh COLLBENCH FIXTURE_REPORT
set -uo pipefail
collbench=$1 fixture=$2
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
script="$here/../../scripts/ci-perf.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; cat "$work/stderr" 2>/dev/null; failures=$((failures + 1)); }

# make_build NAME BODY: a build folder whose *_perf run BODY (bash) and whose collbench is the real one.
make_build() {
  mkdir -p "$work/$1/bin"
  ln -sf "$collbench" "$work/$1/bin/collbench"
  for collective in all_reduce broadcast all_gather; do
    printf '#!/usr/bin/env bash\n%s\n' "$2" > "$work/$1/bin/${collective}_perf"
    chmod +x "$work/$1/bin/${collective}_perf"
  done
}
make_build failing 'exit 1'
make_build garbage 'while [ $# -gt 0 ]; do [ "$1" = -J ] && echo "{ not json" > "$2"; shift; done'
make_build good "while [ \$# -gt 0 ]; do [ \"\$1\" = -J ] && cp '$fixture' \"\$2\"; shift; done"

reset_baseline() {
  rm -rf "$work/baseline"*
  mkdir -p "$work/baseline/run-1"
  echo old > "$work/baseline/run-1/marker"
  echo "# old" > "$work/baseline/fingerprint.txt"
}
baseline_kept() { [ "$(cat "$work/baseline/run-1/marker" 2>/dev/null)" = old ] && [ -z "$(ls -d "$work/baseline".* 2>/dev/null)" ]; }
touch "$work/file"

# bad VARIABLE=VALUE...: exit 2, one stderr line naming the variable, the baseline untouched.
bad() {
  local name=${1%%=*}
  reset_baseline
  env BUILD_DIR="$work/good" BASELINE="$work/baseline" NP=1 "$@" timeout 60 bash "$script" --update-baseline \
    >"$work/stdout" 2>"$work/stderr"
  local code=$?
  if [ "$code" -ne 2 ] || [ "$(wc -l < "$work/stderr")" -ne 1 ] || ! grep -q "^ci-perf.sh: error: $name " "$work/stderr"; then
    fail "$* -> exit $code (want 2 and one line naming $name)"
  elif ! baseline_kept; then
    fail "$* -> the baseline changed"
  else
    echo "ok: $* -> $(cat "$work/stderr")"
  fi
}
bad BASELINE_RUNS=abc
bad BASELINE_RUNS=2
bad RUNS=x
bad RUNS=0
bad NP=0
bad NP=-1
bad MAX_RUNS=lots
bad MAX_RUNS=2 RUNS=3
bad MIN_EFFECT=big
bad FIGURE=p99
bad BASELINE="$work/file"
bad BUILD_DIR="$work/file"
bad OUT="$work/file"
# A BASELINE that is some other folder (issue 64): refused, nothing in it touched.
mkdir -p "$work/mine/run-1" && echo keep > "$work/mine/notes.txt" && echo keep > "$work/mine/fingerprint.txt"
bad BASELINE="$work/mine"
[ "$(cat "$work/mine/notes.txt" "$work/mine/fingerprint.txt")" = "keep"$'\n'"keep" ] && [ -d "$work/mine/run-1" ] &&
  [ -z "$(ls -d "$work/mine".* 2>/dev/null)" ] || fail "a BASELINE of other files was changed"

# update BUILD EXPECTED_EXIT: an update with BUILD's programs.
update() {
  reset_baseline
  BUILD_DIR="$work/$1" BASELINE="$work/baseline" OUT="$work/out-$1" NP=1 BASELINE_RUNS=3 timeout 120 bash "$script" \
    --update-baseline >"$work/stdout" 2>"$work/stderr"
}
update failing
[ $? -ne 0 ] && baseline_kept && echo "ok: a failing suite leaves the baseline" || fail "a failing suite: exit or baseline wrong"
update garbage
[ $? -ne 0 ] && baseline_kept && echo "ok: an unreadable report leaves the baseline" || fail "an unreadable report: exit or baseline wrong"
update good
code=$?
if [ "$code" -ne 0 ] || [ -e "$work/baseline/run-1/marker" ] || [ "$(ls "$work/baseline"/run-*/*.json | wc -l)" -ne 9 ] ||
   [ ! -s "$work/baseline/fingerprint.txt" ] || [ -n "$(ls -d "$work/baseline".* 2>/dev/null)" ]; then
  fail "a good update: exit $code; $(ls -R "$work/baseline"* | tr '\n' ' ')"
else
  echo "ok: a good update replaces the baseline whole"
fi
[ "$failures" -eq 0 ] || { echo "$failures case(s) failed"; exit 1; }
echo "all cases ok"
