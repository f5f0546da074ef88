#!/usr/bin/env bash
# SIGINT or SIGTERM to a running program: exit 1, one line on stderr saying "interrupted by
# SIGINT" (besides any warning about the machine), and the partial report's error says the same.
# usage: interrupt.sh BIN_DIR INT|TERM PROGRAM ARGS...
set -uo pipefail
bin_dir=$1 signal=$2 program=$3
shift 3
work=$(mktemp -d)
pid=""
cleanup() { if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; fi; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "FAIL: $program SIG$signal: $*"; cat "$work/stderr"; exit 1; }
report="$work/report.json"
"$bin_dir/$program" "$@" -J "$report" >"$work/stdout" 2>"$work/stderr" &
pid=$!
for _ in $(seq 1 300); do grep -q '"results": \[$' "$report" 2>/dev/null && break; sleep 0.1; done
grep -q '"results": \[$' "$report" || fail "no row was reported"
kill -"$signal" "$pid"
for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && fail "still running 10 s after the signal"
wait "$pid"
status=$?
pid=""
[ "$status" -eq 1 ] || fail "exit $status (want 1)"
# Warnings about the machine (OpenBLAS picking slower kernels, say) may come first; the stop is one line.
[ "$(grep -vc ': warning: ' "$work/stderr")" -eq 1 ] || fail "want one line on stderr besides warnings"
grep -qx "$program: interrupted by SIG$signal" "$work/stderr" || fail "the line does not say 'interrupted by SIG$signal'"
grep -q "\"error\": \"interrupted by SIG$signal\"" "$report" || fail "the report's error does not say it"
grep -q '"status": "partial"' "$report" || fail "the report is not partial"
echo "ok: $(cat "$work/stderr")"
