#!/usr/bin/env bash
# CI performance guard: runs a fixed small suite under mpirun, compares it with the committed
# baseline (results/baselines/ci-perf/) through `collbench compare`, and exits like compare does:
# 0 nothing slower, 1 a regression (SLOWER rows), 2 bad input (missing baseline, broken report).
#
#   scripts/ci-perf.sh                    # run the suite, compare, print a Markdown table (PR comment)
#   scripts/ci-perf.sh --update-baseline  # run the suite and make it the new baseline
#
# Environment: BUILD_DIR (default build; built when collbench is missing), BASELINE (folder),
# OUT (folder for this run's reports; default a fresh temporary one), MIN_EFFECT (default 5%),
# NP (default 2). A baseline only means something on the machine type that recorded it: record it
# on the CI runner (--update-baseline) and commit the folder.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build}"
bin="$build_dir/bin"
baseline="${BASELINE:-$root/results/baselines/ci-perf}"
np="${NP:-2}"
min_effect="${MIN_EFFECT:-5%}"
update=0
if [ "${1:-}" = "--update-baseline" ]; then update=1; elif [ $# -gt 0 ]; then
  echo "ci-perf.sh: unknown argument '$1' (only --update-baseline)" >&2; exit 2
fi
if [ ! -x "$bin/collbench" ] || [ ! -x "$bin/all_reduce_perf" ]; then BUILD_DIR="$build_dir" "$root/scripts/build.sh"; fi

out="${OUT:-$(mktemp -d)}"
mkdir -p "$out"
# The suite: small enough for a CI minute, large enough (64 KiB+) that one iteration is not lost in
# timer noise; per-iteration samples feed the Mann-Whitney test.
suite_args=(--sizes 64K,256K -n 40 -w 5 -c 1 --samples -T 120)
for collective in all_reduce broadcast all_gather; do
  "$root/scripts/mpirun-local.sh" -np "$np" "$bin/${collective}_perf" "${suite_args[@]}" \
    -J "$out/$collective.json" --overwrite --tag suite=ci-perf > "$out/$collective.txt" 2>&1 || {
    echo "ci-perf.sh: ${collective}_perf failed (exit $?); see $out/$collective.txt" >&2; exit 1; }
done

if [ "$update" -eq 1 ]; then
  mkdir -p "$baseline"
  cp "$out"/*.json "$baseline/"
  echo "ci-perf.sh: baseline updated in $baseline (commit it, with the machine in its README)"
  exit 0
fi
[ -d "$baseline" ] || { echo "ci-perf.sh: no baseline folder $baseline (run with --update-baseline)" >&2; exit 2; }
set +e
"$bin/collbench" compare "$baseline" "$out" --min-effect "$min_effect" --format markdown
status=$?
set -e
echo
echo "reports of this run: $out"
exit $status
