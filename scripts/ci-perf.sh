#!/usr/bin/env bash
# CI performance guard. Verdicts come from runs, not samples: every mode runs the suite several
# times and `collbench compare` judges run-level figures (results/summarize/README.md). Exit codes
# as compare: 0 no regression (SAME, FASTER or UNKNOWN), 1 a row SLOWER, 2 bad input.
#
#   scripts/ci-perf.sh --base-ref REF       # the paired check (decides on a shared runner): builds REF (the merge base)
#                                           # once into CI_PERF_CACHE/<commit>, then runs as --base-build
#   scripts/ci-perf.sh --base-build DIR     # A/B against another build (DIR/bin/*_perf), no stored baseline:
#                                           # runs interleaved (collbench ab) until decided or MAX_RUNS
#   scripts/ci-perf.sh                      # RUNS runs of the suite against the stored baseline (unpaired)
#   scripts/ci-perf.sh --fallback paired    # the same, but a baseline from another machine runs the paired
#                                           # check against BASE_REF instead
#   scripts/ci-perf.sh --update-baseline    # BASELINE_RUNS runs + this machine's fingerprint become a new
#                                           # recording of the baseline, beside its latest BASELINE_RECORDINGS - 1
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
# BASELINE_RECORDINGS (default 10, at least 3): the recordings a baseline keeps, the oldest dropped
# first. Runs of one recording share the machine's level of that minute; the unpaired verdict is
# judged against the spread between recordings (collbench compare --recordings), and a baseline of
# fewer than 3 recordings never says SLOWER. Ten give that spread 9 degrees of freedom (a t quantile
# within 12 % of the normal's) and follow a slow drift of the runner within ten updates.
# CI_PERF_CACHE (default .cache/ci-perf in this tree): where --base-ref builds each commit, one folder
# a commit, reused by later runs (cache it between CI jobs). CMAKE_ARGS reaches REF's build script.
# BASE_REF (--fallback paired; default the merge base of HEAD and origin/main): the commit to build.
# INJECT_SLOWDOWN=PCT: this build's runs take --inject-slowdown PCT (proving the gate on a runner;
# refused with --update-baseline, since such a report is no baseline).
# A baseline holds only on the machine that recorded it: its fingerprint.txt (CPU model, cores, MPI,
# NCCL and driver where present) is checked, and another machine's baseline gives UNKNOWN, not SLOWER,
# with one line naming the flow that decides there (--base-ref).
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
base_ref=""
fallback=""
usage="(--update-baseline, --base-build DIR, --base-ref REF or --fallback paired)"
while [ $# -gt 0 ]; do
  case "$1" in
    --update-baseline)
      [ "$mode" = compare ] && [ -z "$fallback" ] && [ $# -eq 1 ] || { echo "ci-perf.sh: --update-baseline takes no argument" >&2; exit 2; }
      mode=update
      shift ;;
    --base-build)
      [ "$mode" = compare ] && [ -z "$fallback" ] && [ $# -eq 2 ] || { echo "ci-perf.sh: --base-build expects one build folder" >&2; exit 2; }
      mode=ab
      base_build="$2"
      [ -d "$base_build/bin" ] && base_build="$base_build/bin"
      [ -x "$base_build/all_reduce_perf" ] || { echo "ci-perf.sh: no all_reduce_perf in $base_build (or its bin/)" >&2; exit 2; }
      shift 2 ;;
    --base-ref)
      [ "$mode" = compare ] && [ -z "$fallback" ] && [ $# -eq 2 ] && [ -n "$2" ] || { echo "ci-perf.sh: --base-ref expects one commit (e.g. the merge base)" >&2; exit 2; }
      mode=ref
      base_ref="$2"
      shift 2 ;;
    --fallback)
      [ "$mode" = compare ] && [ -z "$fallback" ] && [ "${2:-}" = paired ] || { echo "ci-perf.sh: --fallback expects 'paired' (against the stored baseline only)" >&2; exit 2; }
      fallback=paired
      shift 2 ;;
    *) echo "ci-perf.sh: unknown argument '$1' $usage" >&2; exit 2 ;;
  esac
done
program=ci-perf.sh
source "$root/scripts/check-variables.sh"
source "$root/scripts/owned.sh"
baseline_recordings="${BASELINE_RECORDINGS:-10}"
inject="${INJECT_SLOWDOWN:-}"
cache="${CI_PERF_CACHE:-$root/.cache/ci-perf}"
require_whole_number NP "$np" 1
require_whole_number RUNS "$runs" 1
require_whole_number BASELINE_RUNS "$baseline_runs" 3
require_whole_number BASELINE_RECORDINGS "$baseline_recordings" 3
require_whole_number MAX_RUNS "$max_runs" "$runs"
[ -z "$min_effect" ] || [[ "$min_effect" =~ ^[0-9]+(\.[0-9]+)?%?$ ]] ||
  { echo "$program: error: MIN_EFFECT must be a fraction or a percentage, e.g. 0.05 or 5% (got '$min_effect')" >&2; exit 2; }
require_one_of FIGURE "$figure" min p10 p25 p50 mean
[ -z "$inject" ] || { [[ "$inject" =~ ^[0-9]{1,3}(\.[0-9]+)?$ ]] && [ "$mode" != update ]; } ||
  { echo "$program: error: INJECT_SLOWDOWN must be a percentage such as 10, and not with --update-baseline (got '$inject')" >&2; exit 2; }
require_folder_or_absent BASELINE "$baseline"
require_folder_or_absent BUILD_DIR "$build_dir"
[ -z "${OUT:-}" ] || require_folder_or_absent OUT "$OUT"
if [ "$mode" = ref ] || [ -n "$fallback" ]; then
  require_folder_or_absent CI_PERF_CACHE "$cache"
  owned_folder_usable "$cache" "$program" || exit 2
fi
# --update-baseline rewrites BASELINE: only a folder that holds a baseline and nothing else
# (fingerprint.txt, README.md, run-N/ or recording-*/), so a BASELINE naming any other folder loses nothing.
if [ "$mode" = update ] && [ -e "$baseline" ]; then
  foreign=$(find "$baseline" -mindepth 1 -maxdepth 1 ! -name fingerprint.txt ! -name README.md ! -regex '.*/run-[0-9]+' \
    ! -regex '.*/recording-[0-9A-Za-z-]+' -printf '%f\n' | head -1)
  if [ -n "$foreign" ] || [ ! -f "$baseline/fingerprint.txt" ]; then
    echo "$program: error: BASELINE $baseline is not a baseline this script wrote (${foreign:+it holds $foreign}$([ -n "$foreign" ] || echo "no fingerprint.txt")); refusing to replace it" >&2
    exit 2
  fi
fi
if [ ! -x "$bin/collbench" ] || [ ! -x "$bin/all_reduce_perf" ]; then BUILD_DIR="$build_dir" "$root/scripts/build.sh"; fi

out="${OUT:-$(mktemp -d)}"
mkdir -p "$out"
collectives=(all_reduce broadcast all_gather)
suite_args=(--sizes 64K,256K -n 500 -N 8 -w 5 -c 1 -T 120)
injected=()  # this build's runs only
[ -z "$inject" ] || injected=(--inject-slowdown "$inject")

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

# machine_difference THERE HERE: the first machine field both fingerprint files name with different
# values, as "field: X there, Y here"; nothing when they agree (compare's rule: date, hostname,
# command and note are for people, and a field only one side has is not held against it).
machine_difference() {
  awk 'function value(line) { return substr(line, index(line, "=") + 1) }
       /^#/ || !/=/ { next }
       { field = substr($0, 1, index($0, "=") - 1) }
       field ~ /^(date|hostname|command|note)$/ { next }
       FNR == NR { there[field] = value($0); next }
       (field in there) && there[field] != value($0) { print field ": " there[field] " there, " value($0) " here"; exit }' "$1" "$2"
}

run_suite() {  # run_suite DIR: one run of every collective, a report each
  mkdir -p "$1"
  for collective in "${collectives[@]}"; do
    "$root/scripts/mpirun-local.sh" -np "$np" "$bin/${collective}_perf" "${suite_args[@]}" "${injected[@]}" \
      -J "$1/$collective.json" --overwrite --tag suite=ci-perf > "$1/$collective.txt" 2>&1 || {
      echo "ci-perf.sh: ${collective}_perf failed (exit $?); see $1/$collective.txt" >&2; exit 1; }
  done
}

# build_ref REF: builds REF's suite (its own scripts/build.sh --suite, CMAKE_ARGS passed on) into
# CACHE/<commit>/build once, and prints that build's bin folder. A folder is complete only once its
# `built` mark is written: one left by a build that failed or was killed is built again.
build_ref() {
  local commit folder
  commit=$(git -C "$root" rev-parse --verify --quiet "$1^{commit}") ||
    { echo "$program: error: --base-ref '$1' names no commit of $root (fetch it first: a shallow clone lacks the merge base)" >&2; exit 2; }
  folder="$cache/$commit"
  if [ ! -f "$folder/built" ]; then
    owned_folder_make "$cache" "$program" || exit 2
    rm -rf "$folder"  # a build of this commit that never finished; inside our own cache
    mkdir -p "$folder/src"
    git -C "$root" archive "$commit" | tar -x -C "$folder/src" ||
      { echo "$program: cannot unpack $1 ($commit) into $folder/src" >&2; exit 1; }
    [ -f "$folder/src/scripts/build.sh" ] || { echo "$program: error: $1 ($commit) has no scripts/build.sh to build it with" >&2; exit 2; }
    local what=()
    grep -q -- '--suite' "$folder/src/scripts/build.sh" && what=(--suite)  # older commits build everything
    echo "$program: building $1 ($commit) into $folder/build (once: later runs reuse it)" >&2
    BUILD_DIR="$folder/build" bash "$folder/src/scripts/build.sh" "${what[@]}" > "$folder/build.log" 2>&1 ||
      { echo "$program: building $1 ($commit) failed; see $folder/build.log" >&2; exit 1; }
    for collective in "${collectives[@]}"; do
      [ -x "$folder/build/bin/${collective}_perf" ] || { echo "$program: $1 ($commit) built no ${collective}_perf; see $folder/build.log" >&2; exit 1; }
    done
    echo "$commit $(date -u +%Y-%m-%dT%H:%M:%SZ)" > "$folder/built"
  fi
  echo "$folder/build/bin"
}

# A stored baseline from another machine can only give UNKNOWN: say which flow decides there, and
# with --fallback paired run it against BASE_REF.
if [ "$mode" = compare ] && [ -f "$baseline/fingerprint.txt" ]; then
  here=$(mktemp -d)
  write_fingerprint "$here"
  difference=$(machine_difference "$baseline/fingerprint.txt" "$here/fingerprint.txt")
  rm -rf "$here"
  if [ -n "$difference" ]; then
    echo "$program: the stored baseline comes from another machine ($difference), so its verdicts can only be UNKNOWN; the paired check decides on any machine: scripts/ci-perf.sh --base-ref REF (REF: the merge base), or add --fallback paired" >&2
    if [ -n "$fallback" ]; then
      base_ref="${BASE_REF:-}"
      if [ -z "$base_ref" ]; then
        base_ref=$(git -C "$root" merge-base HEAD origin/main 2>/dev/null) ||
          { echo "$program: error: --fallback paired needs BASE_REF (no merge base of HEAD and origin/main here)" >&2; exit 2; }
      fi
      mode=ref
    fi
  fi
fi
if [ "$mode" = ref ]; then
  base_build=$(build_ref "$base_ref")
  mode=ab
fi

case "$mode" in
  update)
    for run in $(seq 1 "$baseline_runs"); do run_suite "$out/run-$run"; done
    write_fingerprint "$out"
    # The new baseline is written beside the old one and checked whole before it replaces it: a
    # failure anywhere before the rename leaves the stored baseline as it was.
    mkdir -p "$(dirname "$baseline")"
    staged=$(mktemp -d "$baseline.new.XXXXXX")  # its own, new: nothing else is removed with it
    trap 'rm -rf "$staged"' EXIT
    # The recordings kept: those of this machine only (another machine's spread says nothing of this
    # one's). A baseline from before recordings (run-N/ beside fingerprint.txt) is one recording.
    kept_note=""
    if [ -e "$baseline" ]; then
      difference=$(machine_difference "$baseline/fingerprint.txt" "$out/fingerprint.txt")
      if [ -n "$difference" ]; then
        kept_note="; the recordings of another machine ($difference) were dropped"
      else
        for recording in "$baseline"/recording-*/; do
          if [ -d "$recording" ]; then cp -a "$recording" "$staged/"; fi
        done
        if compgen -G "$baseline/run-[0-9]*" > /dev/null; then
          when=$(sed -n 's/^date=//p' "$baseline/fingerprint.txt" | head -1 | tr -d ':-')
          earlier="$staged/recording-${when:-0-undated}"
          mkdir -p "$earlier"
          cp -a "$baseline"/run-[0-9]* "$earlier/"
          cp "$baseline/fingerprint.txt" "$earlier/"
        fi
        if [ -f "$baseline/README.md" ]; then cp "$baseline/README.md" "$staged/"; fi
      fi
    fi
    recording="$staged/recording-$(sed -n 's/^date=//p' "$out/fingerprint.txt" | tr -d ':-')"
    while [ -e "$recording" ]; do recording="$recording-1"; done  # two updates within one second
    for run in $(seq 1 "$baseline_runs"); do mkdir -p "$recording/run-$run" && cp "$out/run-$run"/*.json "$recording/run-$run/"; done
    cp "$out/fingerprint.txt" "$recording/"
    cp "$out/fingerprint.txt" "$staged/"  # the baseline's machine: its latest recording's
    for run in $(seq 1 "$baseline_runs"); do
      for collective in "${collectives[@]}"; do
        "$bin/collbench" table "$recording/run-$run/$collective.json" > /dev/null ||
          { echo "ci-perf.sh: run $run's $collective report is not a valid report; the baseline is unchanged" >&2; exit 1; }
      done
    done
    # The oldest recordings beyond BASELINE_RECORDINGS go (their names sort by their UTC time).
    mapfile -t recordings < <(find "$staged" -mindepth 1 -maxdepth 1 -type d -name 'recording-*' -printf '%f\n' | sort)
    dropped=$(( ${#recordings[@]} > baseline_recordings ? ${#recordings[@]} - baseline_recordings : 0 ))
    for (( i = 0; i < dropped; i++ )); do rm -rf "${staged:?}/${recordings[$i]}"; done
    held=$(( ${#recordings[@]} - dropped ))
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
    if [ "$dropped" -gt 0 ]; then kept_note="; the $dropped oldest dropped$kept_note"; fi
    echo "ci-perf.sh: baseline of $baseline_runs runs updated in $baseline: $(basename "$recording") added, $held recording(s) held (SLOWER needs 3, made at different times)$kept_note (commit it, with the machine in its README)"
    ;;
  compare)
    [ -d "$baseline" ] || { echo "ci-perf.sh: no baseline folder $baseline (run with --update-baseline)" >&2; exit 2; }
    for run in $(seq 1 "$runs"); do run_suite "$out/run-$run"; done
    write_fingerprint "$out"
    set +e
    "$bin/collbench" compare "$baseline" "$out" --recordings --min-effect "${min_effect:-5%}" --figure "$figure" --format markdown --plot "$out/compare.png"
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
        "$base_build/${collective}_perf" "${suite_args[@]}" ::: "$bin/${collective}_perf" "${suite_args[@]}" "${injected[@]}"
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
