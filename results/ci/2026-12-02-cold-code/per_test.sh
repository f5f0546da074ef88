#!/usr/bin/env bash
# usage: per_test.sh LOG OUTDIR: every test's seconds from a .ci/run log, the Release ctest's and the
# sanitizer ctests' in two files.
log=$1; out=$2
awk -v out="$out" '
/Test project .*\/build-sanitize$/ {f=out "/sanitizer-ctest-seconds-per-test.txt"}
/Test project .*\/build$/ {f=out "/ctest-seconds-per-test.txt"}
f && /Test +#[0-9]+: / {
  name=$0; sub(/.*Test +#[0-9]+: /, "", name); sub(/ .*/, "", name)
  n=split($0, w, " "); print w[n-1], name > f }' "$log"
