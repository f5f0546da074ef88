#!/usr/bin/env bash
# A flag of a shared group means the same in every program that takes it: the same value is
# accepted or refused everywhere, with the same exit code and the same message after
# "PROGRAM: error: ". usage: same_flag_same_meaning.sh BIN_DIR PROGRAM...
set -uo pipefail
bin_dir=$1
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# Runs every program with ARGS; all must exit WANT, and all stderr messages must be one and the same.
same_everywhere() {
  local want=$1
  shift
  local first="" program status message
  for program in "${programs[@]}"; do
    timeout 30 "$bin_dir/$program" "$@" >"$work/out" 2>"$work/err"
    status=$?
    message=$(sed "s/^$program: //" "$work/err")
    if [ "$status" -ne "$want" ]; then
      echo "FAIL: $program $*: exit $status, want $want: $(cat "$work/err")"
      failures=$((failures + 1))
    elif [ -z "$first" ]; then
      first="$message"
      echo "ok: $program $* -> exit $status ${message:+($message)}"
    elif [ "$message" != "$first" ]; then
      echo "FAIL: $program $*: '$message' differs from '$first'"
      failures=$((failures + 1))
    fi
  done
}

programs=("$@")
same_everywhere 0 -c 5000 --help   # the same upper bound on checks everywhere
same_everywhere 2 -c 1000001
same_everywhere 2 -n 0
same_everywhere 2 -w -1
same_everywhere 2 -N 0
same_everywhere 2 --inject-slowdown 2x
same_everywhere 2 -T -1
same_everywhere 0 --samples --tag a=b --help
[ "$failures" -eq 0 ] || { echo "$failures program(s) disagree"; exit 1; }
echo "every program agrees on the shared flags"
