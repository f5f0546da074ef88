#!/usr/bin/env bash
# scripts/launch-local.sh: two real ranks without MPI join through the env bootstrap and write one
# checked report; a rank's non-zero exit is the launcher's; bad usage is exit 2 and one line.
# usage: launch_local.sh BIN_DIR LAUNCH_LOCAL
set -uo pipefail
bin_dir=$1 launch=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$launch" -np 2 "$bin_dir/all_reduce_perf" -b 8 -e 1K -f 8 -n 3 -w 1 -c 1 -J "$work/r.json" >"$work/out" 2>&1 ||
  fail "two ranks exited $?: $(tail -n 3 "$work/out")"
"$bin_dir/check_report" "$work/r.json" --benchmark all_reduce --world-size 2 >/dev/null || fail "report"

# Bad input on every rank: exit 2 comes back, and every rank said why.
"$launch" -np 2 "$bin_dir/all_reduce_perf" -b 8 -e 1K --no-such-flag >"$work/out" 2>"$work/err"
code=$?
[ "$code" = 2 ] || fail "bad flag: exit $code, want 2"
[ "$(grep -c "unexpected argument" "$work/err")" = 2 ] || fail "want one line from each rank: $(cat "$work/err")"

# Rank 1 alone fails: its code is the launcher's, and rank 0 does not keep the launcher waiting.
start=$(date +%s)
"$launch" -np 2 bash -c 'if [ "$RANK" = 1 ]; then exit 7; fi; sleep 60' >/dev/null 2>&1
code=$?
[ "$code" = 7 ] || fail "one failing rank: exit $code, want 7"
[ $(( $(date +%s) - start )) -lt 20 ] || fail "the other rank was not ended"

# Ranks that die of a signal while the launcher is busy with another's failure (bash reaps them
# outside `wait -n`; this was CI's exit 1): the exit code is always one of the ranks' own.
for try in 1 2 3 4 5; do
  "$launch" -np 3 bash -c 'case $RANK in 1) exit 7 ;; *) sleep 0.0$((RANDOM % 3)); kill -TERM $$ ;; esac' >/dev/null 2>&1
  code=$?
  [ "$code" = 7 ] || [ "$code" = 143 ] || fail "ranks ending by signal, try $try: exit $code, want 7 or 143"
done

for bad in "-np 0 true" "-np x true" "-n 2 true" "-np 2"; do
  # shellcheck disable=SC2086
  "$launch" $bad >/dev/null 2>"$work/err"
  code=$?
  [ "$code" = 2 ] && [ "$(wc -l < "$work/err")" = 1 ] || fail "'$bad': exit $code, stderr: $(cat "$work/err")"
done
echo "ok: launch-local.sh runs, passes exit codes on and rejects bad usage"
