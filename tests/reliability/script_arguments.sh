#!/usr/bin/env bash
# A script's bad argument is one line naming it and exit 2, before any set-up or build runs.
# usage: script_arguments.sh SOURCE_DIR
root="$1"
failures=0
# refused SCRIPT ARGUMENT EXPECTED_LINE_START
refused() {
  local out code
  out=$(bash "$root/scripts/$1" "$2" 2>&1 >/dev/null)
  code=$?
  if [ "$code" -ne 2 ] || [ "$(printf '%s\n' "$out" | wc -l)" -ne 1 ] || [[ "$out" != "$3"* ]]; then
    echo "FAIL: $1 $2 -> exit $code: $out"
    failures=$((failures + 1))
  else
    echo "ok: $1 $2 -> $out"
  fi
}
refused fuzz.sh 12x "fuzz: error: SECONDS must be a whole number"
refused fuzz.sh 0 "fuzz: error: SECONDS must be a whole number"
refused fuzz.sh --build "fuzz: error: SECONDS must be a whole number"
[ "$failures" -eq 0 ]
