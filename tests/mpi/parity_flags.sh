#!/usr/bin/env bash
# nccl-tests' flags that also mean something on the CPU path, under real mpirun with 2 ranks:
# -m (calls per iteration), -u (unaligned buffers), -S (time stamps), -M (memory report),
# --min-busbw / NCCL_TESTS_MIN_BW (the bandwidth gate) and -a (the estimator, with its views).
# usage: parity_flags.sh BIN_DIR
set -uo pipefail
bin_dir=$1
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mpirun_local="$here/../../scripts/mpirun-local.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# -m 3 -u 1 -S 1 -M 1: checked rows (checks run one call, never the group), per-call times.
"$mpirun_local" -np 2 "$bin_dir/all_reduce_perf" -b 1K -e 64K -f 8 -n 4 -w 1 -c 1 -m 3 -u 1 -S 1 -M 1 \
  -J "$work/m.json" >"$work/m.out" 2>"$work/m.err" || { cat "$work/m.err"; fail "-m/-u/-S/-M run exit $?"; }
[ "$(jq '[.results[] | select(.wrong != 0)] | length' "$work/m.json")" -eq 0 ] || fail "-m 3 -u 1 rows have wrong elements"
[ "$(jq '[.results[] | select(.calls_per_iteration != 3)] | length' "$work/m.json")" -eq 0 ] || fail "rows lack calls_per_iteration 3"
grep -q '"unaligned_elements": 1' "$work/m.json" || fail "the report's options do not record -u 1"
grep -Eq '^ +1024 .* [0-9]{4}-[0-9]{2}-[0-9]{2}T' "$work/m.out" || fail "-S 1 lines have no time stamp"
[ "$(grep -c 'peak resident memory' "$work/m.out")" -eq 2 ] || fail "-M 1 did not print one line per rank"

# The estimator: the default is the mean over ranks, named in the header; every row keeps the
# mean, max and min views, ordered min <= mean <= max, and the headline equals the mean view.
grep -q 'time (us) = mean over ranks' "$work/m.out" || fail "the header does not name the estimator"
jq -e '[.results[] | .time_over_ranks_us as $v | ($v.min <= $v.mean + 1e-9) and ($v.mean <= $v.max + 1e-9)
        and ((.time_us.mean - $v.mean) | fabs) < 1e-6 * (1 + $v.mean)] | all' "$work/m.json" >/dev/null \
  || fail "rows' views are missing, unordered, or the headline is not the mean view"
[ "$(jq -r '.results[0].time_aggregation' "$work/m.json")" = mean ] || fail "default aggregation is not mean"
jq -e '.results[0].timing | test("OSU")' "$work/m.json" >/dev/null || fail "rows do not say how they were timed"

# -a 3 prints the max view as its headline.
"$mpirun_local" -np 2 "$bin_dir/all_reduce_perf" -b 8 -e 8 -n 5 -a 3 -J "$work/a3.json" >/dev/null 2>&1 || fail "-a 3 run"
jq -e '.results[] | ((.time_us.mean - .time_over_ranks_us.max) | fabs) < 1e-6 * (1 + .time_us.mean)' "$work/a3.json" \
  >/dev/null || fail "-a 3 headline is not the max view"

# The bandwidth gate: exit 1 with one line below it; the flag and nccl-tests' variable both work.
"$mpirun_local" -np 2 "$bin_dir/all_reduce_perf" -b 1K -e 1K -n 2 --min-busbw 1000000 >/dev/null 2>"$work/gate.err"
status=$?
[ "$status" -eq 1 ] || fail "--min-busbw 1000000 exited $status, want 1"
[ "$(grep -c 'below the minimum' "$work/gate.err")" -eq 1 ] || fail "--min-busbw did not say why in one line"
NCCL_TESTS_MIN_BW=1000000 "$mpirun_local" -np 2 -x NCCL_TESTS_MIN_BW "$bin_dir/all_reduce_perf" -b 1K -e 1K -n 2 \
  >/dev/null 2>&1 && fail "NCCL_TESTS_MIN_BW=1000000 did not fail the run"
"$mpirun_local" -np 2 "$bin_dir/all_reduce_perf" -b 1K -e 1K -n 2 --min-busbw 0.000001 >/dev/null 2>&1 \
  || fail "--min-busbw below the measured bandwidth failed the run"
echo "ok: -m, -u, -S, -M, the estimator views, -a 3 and the bandwidth gate"
