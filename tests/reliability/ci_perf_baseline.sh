#!/usr/bin/env bash
# scripts/ci-perf.sh never loses its baseline (issue 48), nor a folder that is not one (issue 64):
# every bad variable is refused up front
# (exit 2, one line naming it) with the stored baseline untouched; a suite that fails, or that
# writes a report collbench cannot read, leaves the baseline as it was; a good update adds a
# recording (issue 65), leaving nothing beside it; a foreign baseline names the paired flow. The *_perf programs are stand-ins (one copies a fixture report
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
bad BASELINE_RECORDINGS=2
bad INJECT_SLOWDOWN=ten
bad INJECT_SLOWDOWN=10  # such runs are no baseline
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
grep -q "it holds notes.txt);" "$work/stderr" || fail "the refusal names what the folder holds once: $(cat "$work/stderr")"
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
# A good update adds a recording and keeps the earlier baseline as one (issue 65): the old run-1/
# (a baseline from before recordings) moves into recording-0-undated/, beside the new recording.
if [ "$code" -ne 0 ] || [ -e "$work/baseline/run-1" ] || [ "$(cat "$work/baseline/recording-0-undated/run-1/marker" 2>/dev/null)" != old ] ||
   [ "$(ls "$work/baseline"/recording-2*/run-*/*.json | wc -l)" -ne 9 ] || [ ! -s "$work/baseline/fingerprint.txt" ] ||
   [ ! -s "$work/baseline"/recording-2*/fingerprint.txt ] || [ -n "$(ls -d "$work/baseline".* 2>/dev/null)" ] ||
   ! grep -q "recording-2.* added, 2 recording(s) held" "$work/stdout"; then
  fail "a good update: exit $code; $(cat "$work/stdout"); $(ls -R "$work/baseline"* | tr '\n' ' ')"
else
  echo "ok: a good update adds a recording and keeps the earlier one"
fi

# more_updates N [VARIABLE=VALUE...]: N more good updates of the baseline as it stands.
more_updates() {
  local count=$1
  shift
  for _ in $(seq 1 "$count"); do
    env BUILD_DIR="$work/good" BASELINE="$work/baseline" OUT="$work/out-more" NP=1 BASELINE_RUNS=3 "$@" timeout 120 bash "$script" \
      --update-baseline >"$work/stdout" 2>"$work/stderr" || return 1
    rm -rf "$work/out-more"
  done
}
more_updates 3 BASELINE_RECORDINGS=3 && [ "$(ls -d "$work/baseline"/recording-* | wc -l)" -eq 3 ] && [ ! -e "$work/baseline/recording-0-undated" ] &&
  grep -q "3 recording(s) held.*oldest dropped" "$work/stdout" && echo "ok: BASELINE_RECORDINGS bounds the recordings kept, the oldest dropped" ||
  fail "BASELINE_RECORDINGS=3: $(cat "$work/stdout"); $(ls "$work/baseline" | tr '\n' ' ')"
# A baseline of another machine is not mixed with this one's: its recordings are dropped, and the update says so.
sed -i 's/^cores=.*/cores=4096/' "$work/baseline/fingerprint.txt"
more_updates 1 && [ "$(ls -d "$work/baseline"/recording-* | wc -l)" -eq 1 ] && grep -q "recordings of another machine (cores: 4096 there" "$work/stdout" &&
  echo "ok: another machine's recordings are dropped, with one line" || fail "another machine's baseline: $(cat "$work/stdout")"

# A stored baseline of another machine (issue 65): one line names the flow that decides (--base-ref),
# and the comparison runs as before (UNKNOWN, exit 0).
sed -i 's/^cores=.*/cores=4096/' "$work/baseline/fingerprint.txt"
BUILD_DIR="$work/good" BASELINE="$work/baseline" OUT="$work/out-foreign" NP=1 RUNS=3 timeout 120 bash "$script" >"$work/stdout" 2>"$work/stderr"
code=$?
[ "$code" -eq 0 ] && [ "$(grep -c 'comes from another machine (cores: 4096 there, .* here).*--base-ref REF' "$work/stderr")" -eq 1 ] &&
  grep -q "verdict: UNKNOWN -- BASE and NEW ran on different machines" "$work/stdout" && echo "ok: a foreign baseline names --base-ref" ||
  fail "a foreign baseline: exit $code; $(cat "$work/stdout")"
# --fallback paired runs the paired check against BASE_REF instead, from the build cache when that
# commit is built there already (no build here: its programs are the stand-ins).
if commit=$(git -C "$here/../.." rev-parse --verify --quiet HEAD); then
  mkdir -p "$work/cache/$commit/build"
  echo "ci-perf.sh made" > "$work/cache/.collbench-owner"
  cp -a "$work/good/bin" "$work/cache/$commit/build/"
  echo "$commit" > "$work/cache/$commit/built"
  BUILD_DIR="$work/good" BASELINE="$work/baseline" OUT="$work/out-fallback" CI_PERF_CACHE="$work/cache" BASE_REF=HEAD NP=1 RUNS=3 MAX_RUNS=3 \
    timeout 200 bash "$script" --fallback paired >"$work/stdout" 2>"$work/stderr"
  code=$?
  [ "$code" -eq 0 ] && grep -q "A: $work/cache/$commit/build/bin" "$work/stdout" && [ -d "$work/out-fallback/broadcast/A" ] &&
    ! grep -q "building" "$work/stderr" && echo "ok: --fallback paired runs ab against BASE_REF's cached build" ||
    fail "--fallback paired: exit $code; $(cat "$work/stdout")"
  # An unknown commit: exit 2, one line.
  BUILD_DIR="$work/good" BASELINE="$work/baseline" CI_PERF_CACHE="$work/cache" NP=1 timeout 60 bash "$script" --base-ref no-such-ref-65 \
    >"$work/stdout" 2>"$work/stderr"
  [ $? -eq 2 ] && [ "$(wc -l < "$work/stderr")" -eq 1 ] && grep -q "names no commit" "$work/stderr" && echo "ok: --base-ref of no commit: exit 2" ||
    fail "--base-ref no-such-ref-65"
else
  echo "skip: the source tree is no git checkout, so --fallback paired has no commit to find"
fi
for arguments in "--fallback" "--fallback serial" "--base-ref" "--update-baseline --fallback paired"; do
  # shellcheck disable=SC2086
  BUILD_DIR="$work/good" BASELINE="$work/baseline" timeout 60 bash "$script" $arguments >"$work/stdout" 2>"$work/stderr"
  [ $? -eq 2 ] && [ "$(wc -l < "$work/stderr")" -eq 1 ] && echo "ok: $arguments -> $(cat "$work/stderr")" || fail "$arguments: not exit 2 with one line"
done
[ "$failures" -eq 0 ] || { echo "$failures case(s) failed"; exit 1; }
echo "all cases ok"
