#!/usr/bin/env bash
# CI performance guard. Verdicts come from runs, not samples: every mode runs the suite several
# times and `collbench compare` judges run-level figures (results/summarize/README.md). Exit codes
# as compare: 0 no regression (SAME, FASTER or UNKNOWN), 1 a row SLOWER, 2 bad input.
#
#   scripts/ci-perf.sh                      # RUNS runs of the suite against the stored baseline
#   scripts/ci-perf.sh --update-baseline    # BASELINE_RUNS runs + this machine's fingerprint become the baseline
#   scripts/ci-perf.sh --base-build DIR     # A/B against another build (DIR/bin/*_perf), no stored baseline:
#                                           # runs interleaved (collbench ab) until decided or MAX_RUNS
#
# The suite: all_reduce, broadcast, all_gather at NP ranks (default 2), 64 KiB and 256 KiB, 500
# iterations a cycle, 8 cycles (-N 8): each row's iterations spread over the run's whole 0.3 s,
# so a machine state that lasts a tenth of a second cannot make a run's figure (the p10 of its
# cycles' p10 times; FIGURE to change). 40 iterations in one block sampled one state per row.
# Environment: BUILD_DIR (default build; built when collbench is missing), BASELINE (folder),
# OUT (this run's folder; default a fresh temporary one), MIN_EFFECT (default 5% against the stored
# baseline, recorded on another day and judged unpaired; 3%, collbench's default, with --base-build,
# whose interleaved pairs share the machine's state), FIGURE (default
# p10), NP, RUNS (default 3), BASELINE_RUNS (default 5), MAX_RUNS (--base-build, default 10: the
# paired signed-rank test needs 5-7 pairs before it can call a row SLOWER). The Markdown ends with the
# smallest change the runs could have found.
# A baseline holds only on the machine that recorded it: its fingerprint.txt (CPU model, cores, MPI,
# NCCL and driver where present) is checked, and another machine's baseline gives UNKNOWN, not SLOWER.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build}"
bin="$build_dir/bin"
baseline="${BASELINE:-$root/results/baselines/ci-perf}"
np="${NP:-2}"
min_effect="${MIN_EFFECT:-}"
runs="${RUNS:-3}"
baseline_runs="${BASELINE_RUNS:-5}"
max_runs="${MAX_RUNS:-10}"
figure="${FIGURE:-p10}"
mode=compare
base_build=""
case "${1:-}" in
  "") ;;
  --update-baseline) mode=update; [ $# -eq 1 ] || { echo "ci-perf.sh: --update-baseline takes no argument" >&2; exit 2; } ;;
  --base-build)
    mode=ab
    [ $# -eq 2 ] || { echo "ci-perf.sh: --base-build expects one build folder" >&2; exit 2; }
    base_build="$2"
    [ -d "$base_build/bin" ] && base_build="$base_build/bin"
    [ -x "$base_build/all_reduce_perf" ] || { echo "ci-perf.sh: no all_reduce_perf in $base_build (or its bin/)" >&2; exit 2; } ;;
  *) echo "ci-perf.sh: unknown argument '$1' (--update-baseline or --base-build DIR)" >&2; exit 2 ;;
esac
program=ci-perf.sh
source "$root/scripts/check-variables.sh"
require_whole_number NP "$np" 1
require_whole_number RUNS "$runs" 1
require_whole_number BASELINE_RUNS "$baseline_runs" 3
require_whole_number MAX_RUNS "$max_runs" "$runs"
[ -z "$min_effect" ] || [[ "$min_effect" =~ ^[0-9]+(\.[0-9]+)?%?$ ]] ||
  { echo "$program: error: MIN_EFFECT must be a fraction or a percentage, e.g. 0.05 or 5% (got '$min_effect')" >&2; exit 2; }
require_one_of FIGURE "$figure" min p10 p25 p50 mean
require_folder_or_absent BASELINE "$baseline"
require_folder_or_absent BUILD_DIR "$build_dir"
[ -z "${OUT:-}" ] || require_folder_or_absent OUT "$OUT"
# --update-baseline replaces BASELINE whole: only a folder that holds a baseline and nothing else
# (fingerprint.txt, README.md, run-N/), so a BASELINE naming any other folder loses nothing.
if [ "$mode" = update ] && [ -e "$baseline" ]; then
  foreign=$(find "$baseline" -mindepth 1 -maxdepth 1 ! -name fingerprint.txt ! -name README.md ! -regex '.*/run-[0-9]+' -printf '%f\n' | head -1)
  if [ -n "$foreign" ] || [ ! -f "$baseline/fingerprint.txt" ]; then
    echo "$program: error: BASELINE $baseline is not a baseline this script wrote (${foreign:+it holds $foreign}${foreign:-no fingerprint.txt}); refusing to replace it" >&2
    exit 2
  fi
fi
if [ ! -x "$bin/collbench" ] || [ ! -x "$bin/all_reduce_perf" ]; then BUILD_DIR="$build_dir" "$root/scripts/build.sh"; fi

out="${OUT:-$(mktemp -d)}"
mkdir -p "$out"
collectives=(all_reduce broadcast all_gather)
suite_args=(--sizes 64K,256K -n 500 -N 8 -w 5 -c 1 -T 120)

# The machine, beside the reports: name=value lines that collbench compare checks (date and
# hostname are for people only). Versions the reports carry (MPI, NCCL) are checked from them too.
write_fingerprint() {
  {
    echo "# written by scripts/ci-perf.sh; compared by collbench compare (date, hostname: informational)"
    echo "cpu_model=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -1)"
    # Virtual machines often name every generation "AMD EPYC": family and model tell them apart.
    echo "cpu_family_model=$(sed -n 's/^cpu family[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -1)/$(sed -n 's/^model[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -1)"
    echo "cores=$(nproc)"
    echo "mpi=$(mpirun --version 2>/dev/null | head -1)"
    [ -r /proc/driver/nvidia/version ] && echo "driver=$(head -1 /proc/driver/nvidia/version | sed 's/  */ /g')"
    echo "os=$(. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-unknown}")"
    echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "hostname=$(hostname)"
  } > "$1/fingerprint.txt"
}

run_suite() {  # run_suite DIR: one run of every collective, a report each
  mkdir -p "$1"
  for collective in "${collectives[@]}"; do
    "$root/scripts/mpirun-local.sh" -np "$np" "$bin/${collective}_perf" "${suite_args[@]}" \
      -J "$1/$collective.json" --overwrite --tag suite=ci-perf > "$1/$collective.txt" 2>&1 || {
      echo "ci-perf.sh: ${collective}_perf failed (exit $?); see $1/$collective.txt" >&2; exit 1; }
  done
}

case "$mode" in
  update)
    for run in $(seq 1 "$baseline_runs"); do run_suite "$out/run-$run"; done
    write_fingerprint "$out"
    # The new baseline is written beside the old one and checked whole before it replaces it: a
    # failure anywhere before the rename leaves the stored baseline as it was.
    mkdir -p "$(dirname "$baseline")"
    staged=$(mktemp -d "$baseline.new.XXXXXX")  # its own, new: nothing else is removed with it
    trap 'rm -rf "$staged"' EXIT
    for run in $(seq 1 "$baseline_runs"); do mkdir -p "$staged/run-$run" && cp "$out/run-$run"/*.json "$staged/run-$run/"; done
    cp "$out/fingerprint.txt" "$staged/"
    for run in $(seq 1 "$baseline_runs"); do
      for collective in "${collectives[@]}"; do
        "$bin/collbench" table "$staged/run-$run/$collective.json" > /dev/null ||
          { echo "ci-perf.sh: run $run's $collective report is not a valid report; the baseline is unchanged" >&2; exit 1; }
      done
    done
    chmod 755 "$staged"
    if [ -e "$baseline" ]; then
      old=$(mktemp -d "$baseline.old.XXXXXX")
      mv -T "$baseline" "$old/baseline"
      mv -T "$staged" "$baseline" || { mv -T "$old/baseline" "$baseline"; rmdir "$old"; echo "ci-perf.sh: cannot replace $baseline; unchanged" >&2; exit 1; }
      rm -rf "$old"
    else
      mv -T "$staged" "$baseline"
    fi
    trap - EXIT
    echo "ci-perf.sh: baseline of $baseline_runs runs updated in $baseline (commit it, with the machine in its README)"
    ;;
  compare)
    [ -d "$baseline" ] || { echo "ci-perf.sh: no baseline folder $baseline (run with --update-baseline)" >&2; exit 2; }
    for run in $(seq 1 "$runs"); do run_suite "$out/run-$run"; done
    write_fingerprint "$out"
    set +e
    "$bin/collbench" compare "$baseline" "$out" --min-effect "${min_effect:-5%}" --figure "$figure" --format markdown --plot "$out/compare.png"
    status=$?
    set -e
    echo
    echo "reports of this run: $out"
    exit $status
    ;;
  ab)
    status=0
    for collective in "${collectives[@]}"; do
      set +e
      "$bin/collbench" ab --np "$np" --runs "$runs" --max-runs "$max_runs" --min-effect "${min_effect:-3%}" --figure "$figure" --out "$out/$collective" \
        --format markdown --plot "$out/$collective/compare.png" -- \
        "$base_build/${collective}_perf" "${suite_args[@]}" ::: "$bin/${collective}_perf" "${suite_args[@]}"
      code=$?
      set -e
      # The worst outcome wins: bad input (2) over a regression (1) over none (0).
      if [ $code -gt $status ]; then status=$code; fi
      echo
    done
    echo "reports of this run: $out (A: $base_build, B: $bin)"
    exit $status
    ;;
esac
