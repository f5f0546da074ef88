#!/usr/bin/env bash
# collbench's commands read replay_perf's reports like any other kind (issue 61): table lists the
# sequence and bucket rows, compare and history judge them (exit 0 or 1, never a refusal; history
# finds the 3 series, the sequence and its 2 buckets; a --scale run beside the job as recorded is
# refused by compare and kept apart by history), speedup
# sets the mpi and gloo backends side by side, and ab runs replay_perf itself on both sides.
# usage: summarize_replay.sh BIN_DIR DATA_DIR
set -uo pipefail
bin=$1 data=$2
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
scripts="$here/../../scripts"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
# ab launches with plain mpirun: as root, and more ranks than cores, as scripts/mpirun-local.sh does.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
replay=("$bin/replay_perf" --trace "$data/torch/tp.rank0.kineto.json" --trace "$data/torch/tp.rank1.kineto.json" -N 2 -n 3 -w 1)
mkdir -p "$work/runs"
for run in 1 2; do
  timeout 120 "$scripts/mpirun-local.sh" -np 2 "${replay[@]}" -J "$work/runs/run-$run.json" >/dev/null 2>"$work/err" ||
    fail "replay_perf run $run: $(cat "$work/err")"
done
timeout 120 "$scripts/mpirun-local.sh" -np 2 "${replay[@]}" --backend gloo -J "$work/gloo.json" >/dev/null 2>"$work/err" ||
  fail "replay_perf on gloo: $(cat "$work/err")"
# The same trace as a 1-rank job (--scale 1): its rows are keyed by their scale, never one series
# with the job as recorded.
mkdir -p "$work/mixed"
timeout 120 "$scripts/mpirun-local.sh" -np 2 "${replay[@]}" --scale 1 --scale-counts total -J "$work/mixed/scaled.json" >/dev/null 2>"$work/err" ||
  fail "replay_perf --scale 1: $(cat "$work/err")"
cp "$work/runs/run-1.json" "$work/mixed/"

expect() {  # NAME CODES PATTERN COMMAND...: the exit code is one of CODES, the output has PATTERN
  local name=$1 codes=$2 pattern=$3 status
  shift 3
  "$@" >"$work/$name.out" 2>&1
  status=$?
  if [[ " $codes " != *" $status "* ]] || ! grep -qE -- "$pattern" "$work/$name.out"; then
    fail "$name: exit $status (want $codes), output without /$pattern/:"; head -n 20 "$work/$name.out"
  else
    echo "ok   $name (exit $status)"
  fi
}
expect table "0" "sequence.*all_gather|all_gather.*sequence" bash -c "'$bin/collbench' table '$work/runs/run-1.json' | tr '\n' ' '"
expect table_buckets "0" "reduce_scatter +float32 +2 +4096" "$bin/collbench" table "$work/runs/run-1.json"
expect compare "0 1" "all_gather" "$bin/collbench" compare "$work/runs/run-1.json" "$work/runs/run-2.json"
expect history "0 1" "in 3 series over 2 reports" "$bin/collbench" history "$work/runs"
expect compare_scaled "2" "no row in common .*scale" "$bin/collbench" compare "$work/runs/run-1.json" "$work/mixed/scaled.json"
expect history_scaled "0 1" "in 6 series over 2 reports" "$bin/collbench" history "$work/mixed"
expect speedup "0" "gloo" "$bin/collbench" speedup --by backend "$work/runs/run-1.json" "$work/gloo.json"
expect ab "0 1" "all_gather|sequence" "$bin/collbench" ab --np 2 --runs 2 --max-runs 2 --out "$work/ab" -- "${replay[@]}" ::: "${replay[@]}"
ls "$work/ab/A/"*.json >/dev/null 2>&1 || fail "ab wrote no replay report of side A"
[ "$failures" -eq 0 ] && echo "collbench table, compare, history, speedup and ab read replay reports"
exit $((failures > 0))
