#!/usr/bin/env bash
# A malformed report through a reader (report_probe, or "collbench table"): exit 2 and exactly one
# line on stderr, never a crash (a signal gives 128+N) or a hang. usage: malformed.sh "CMD;ARGS" FILE
set -uo pipefail
IFS=';' read -r -a command <<<"$1"
file=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
timeout 20 "${command[@]}" "$file" >"$work/stdout" 2>"$work/stderr"
status=$?
lines=$(grep -c . "$work/stderr")
if [ "$status" -ne 2 ] || [ "$lines" -ne 1 ]; then
  echo "FAIL: ${command[*]} $file: exit $status (want 2), $lines stderr lines (want 1)"
  head -c 2000 "$work/stderr"
  exit 1
fi
echo "ok: $(cat "$work/stderr")"
