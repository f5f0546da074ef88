#!/usr/bin/env bash
# GPU verification in one command per phase (docs/gpu-verify.md): build collbench and nccl-tests
# for the card found, test the GPU path, and measure collbench next to nccl-tests, cuBLASLt and
# cudaMemcpy. Run from the repository root on the GPU machine.
#
# usage: scripts/gpu-verify.sh --nccl-tests DIR --out OUT [--phase build|test|measure|all] [--quick]
#                              [--steps LIST] [--budget SECONDS] [--bundle DIR] [--sizes MIN,MAX,FACTOR]
#                              [--collectives LIST] [--test-sizes MIN,MAX,FACTOR] [--repetitions N]
#   --nccl-tests DIR  an NVIDIA/nccl-tests source copy (DIR/src/Makefile), kept out of git
#   --out OUT         gets summary.md and gpu-verify.tar.gz (reports and logs), nothing else; both are
#                     written again after every step, so a command stopped at its limit loses only
#                     the step in flight
#   --phase           build, test, measure, or all three in turn (default all); each is meant to
#                     fit one 10-minute command on a 16-core machine; state is kept in $BUILD_DIR/verify,
#                     so each phase's OUT holds everything done so far on that machine
#   --quick           a small measure phase: 2 collectives, 3 sizes, bf16 GEMM, d2d copy (meant for < 3 min)
#   --steps LIST      measure steps, comma list (default all, in this order): collectives,compute,
#                     copy,capture,timeout,tflag,graph,registered; asked for by name only: tune, and
#                     this wave's paths explain,replay (one GPU), split,tuner_plugin (two or more)
#   --budget SECONDS  start no new run after this many seconds of the phase (default 500)
#   --bundle DIR      use a build made elsewhere (scripts/gpu-bundle.sh pack) instead of building:
#                     unpacked once, its libraries restored on every later call; --phase all is
#                     then test and measure
#   --sizes MIN,MAX,FACTOR  the side-by-side steps' sizes instead of 8,8G,2 (--quick: 8,128M,4096),
#                     as both tools' -b, -e and -f take them, e.g. 4M,32M,2 to look at one range again
#   --collectives LIST  the test phase's -d all -c 1 runs, in this order (default: those never
#                     checked on a GPU first: all_gather,broadcast,alltoall,gather,scatter,reduce_scatter,
#                     reduce,all_reduce,sendrecv,alltoallv); ctest -L gpu and comm_init_perf follow them
#   --test-sizes MIN,MAX,FACTOR  the test phase's sizes instead of 8,64M,2
#   --repetitions N   the side-by-side steps' repetitions (default 3), the outer loop: a sweep cut
#                     short has every collective once before any has twice
# Environment: BUILD_DIR (default build-gpu), CMAKE_ARGS (extra configure arguments),
# GPU_VERIFY_ASSUME_GPUS=N (testing aid: skip the GPU detection; every GPU run then fails).
# GPU_VERIFY_PAUSE_AFTER_STEP=SECONDS (testing aid: sleep after each step is packed, so a test can
# stop the command after the step it chose).
# Without a GPU (none listed by nvidia-smi, or CUDA_VISIBLE_DEVICES empty) only --phase build runs;
# any other phase stops at once with one line and exit 2. Every phase starts with a preflight (the
# driver, CUDA, the NCCL the programs will load, MPI or none) that stops a test or measure phase
# with one line and exit 2 when python3, NCCL or a program's library is missing.
# Exit codes: 0 ok, 1 a step failed, 2 bad usage or something missing, 3 wrong results in the test phase.
set -uo pipefail

program=gpu-verify.sh
usage_error() { echo "$program: error: $1" >&2; exit 2; }
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

nccl_tests="" out="" phase=all quick=0 budget=500 bundle="" sizes="" test_sizes=8,64M,2 repetitions=""
# tune is optional (asked for with --steps): on one GPU NCCL has no algorithm worth tuning. So are
# the steps of paths newer than the last lease (issue 66), in the order that gives one GPU the most
# checks first: explain and replay run on one GPU, split and tuner_plugin need two or more. Each is
# recorded as skipped, with the reason, where this build lacks the program or flag it runs.
default_steps="collectives,compute,copy,capture,timeout,tflag,graph,registered"
optional_steps="explain,replay,split,tuner_plugin"
all_steps="$default_steps,tune,$optional_steps"
steps=$default_steps
# The collectives whose GPU rows were never data-checked in a committed report come first, then
# all_reduce (checked only by older code), then the two fixed on 2026-11-27.
all_test_collectives="all_gather,broadcast,alltoall,gather,scatter,reduce_scatter,reduce,all_reduce,sendrecv,alltoallv"
test_collectives=$all_test_collectives
while [ $# -gt 0 ]; do
  case $1 in
    --nccl-tests|--out|--phase|--steps|--budget|--bundle|--sizes|--collectives|--test-sizes|--repetitions)
      [ $# -ge 2 ] && [ -n "$2" ] || usage_error "$1 needs a value"; ;;&
    --nccl-tests) nccl_tests=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --phase) phase=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --bundle) bundle=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --collectives) test_collectives=$2; shift 2 ;;
    --test-sizes) test_sizes=$2; shift 2 ;;
    --repetitions) repetitions=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    -h|--help) sed -n '2,/^# Exit codes/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage_error "unknown argument '$1' (see --help)" ;;
  esac
done
[ -n "$nccl_tests" ] || usage_error "--nccl-tests DIR is required (an NVIDIA/nccl-tests source copy)"
[ -n "$out" ] || usage_error "--out OUT is required"
case $phase in build|test|measure|all) ;; *) usage_error "--phase is build, test, measure or all, not '$phase'" ;; esac
[[ $budget =~ ^[1-9][0-9]*$ ]] || usage_error "--budget '$budget' is not a positive number of seconds"
# Both tools parse -b/-e/-f themselves; only the shape is checked here, so a typo fails at once.
size_pattern='[1-9][0-9]*[KMG]?'
[ -z "$sizes" ] || [[ $sizes =~ ^$size_pattern,$size_pattern,[1-9][0-9]*$ ]] ||
  usage_error "--sizes '$sizes' is not MIN,MAX,FACTOR (e.g. 4M,32M,2)"
[[ $test_sizes =~ ^$size_pattern,$size_pattern,[1-9][0-9]*$ ]] ||
  usage_error "--test-sizes '$test_sizes' is not MIN,MAX,FACTOR (e.g. 8,64M,2)"
[ -z "$repetitions" ] || [[ $repetitions =~ ^[1-9][0-9]?$ ]] || usage_error "--repetitions '$repetitions' is not a count from 1 to 99"
[ -n "$test_collectives" ] || usage_error "--collectives needs at least one collective"
for collective in ${test_collectives//,/ }; do
  [[ ",$all_test_collectives," == *",$collective,"* ]] ||
    usage_error "unknown collective '$collective' (collectives: $all_test_collectives)"
done
for step in ${steps//,/ }; do
  [[ ",$all_steps," == *",$step,"* ]] || usage_error "unknown measure step '$step' (steps: $all_steps)"
done
[ -f "$nccl_tests/src/Makefile" ] || usage_error "--nccl-tests $nccl_tests is not an nccl-tests source copy (no src/Makefile)"
if [ -n "$bundle" ]; then
  [ "$phase" != build ] || usage_error "--bundle brings a build: run --phase test, measure or all with it"
  [ -f "$bundle/bundle.tar.xz" ] || usage_error "--bundle $bundle is not a bundle (no bundle.tar.xz; see scripts/gpu-bundle.sh)"
fi
[ ! -e "$out" ] || [ -d "$out" ] || usage_error "--out $out exists and is not a folder"
[ ! -d "$out" ] || [ -z "$(ls -A "$out")" ] || usage_error "--out $out is not empty"

# The environment's settings, checked before anything runs.
source "$root/scripts/check-variables.sh"
[ -z "${BUILD_DIR:-}" ] || require_folder_or_absent BUILD_DIR "$BUILD_DIR"
[ -z "${GPU_VERIFY_ASSUME_GPUS:-}" ] || require_whole_number GPU_VERIFY_ASSUME_GPUS "$GPU_VERIFY_ASSUME_GPUS" 0
[ -z "${GPU_VERIFY_PAUSE_AFTER_STEP:-}" ] || require_whole_number GPU_VERIFY_PAUSE_AFTER_STEP "$GPU_VERIFY_PAUSE_AFTER_STEP" 0
require_one_of COLLBENCH_LOCAL_LAUNCHER "${COLLBENCH_LOCAL_LAUNCHER:-}" "" env

# GPUs: what nvidia-smi lists, none when CUDA_VISIBLE_DEVICES is set and empty (how tests hide them).
# GPU_VERIFY_ASSUME_GPUS=N (a testing aid) skips the detection, so the test and measure plumbing
# can run on a machine without a GPU: every GPU run then fails, and the summary must say so.
gpus=0
if [ -n "${GPU_VERIFY_ASSUME_GPUS:-}" ]; then
  gpus=$GPU_VERIFY_ASSUME_GPUS
elif [ -z "${CUDA_VISIBLE_DEVICES-unset}" ]; then gpus=0
elif command -v nvidia-smi >/dev/null 2>&1; then
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
  # CUDA_VISIBLE_DEVICES=0,1 on a larger machine: as many GPUs as it names, at most those listed.
  if [ -n "${CUDA_VISIBLE_DEVICES:-}" ] && [ "$gpus" -gt 0 ]; then
    visible=$(tr ',' '\n' <<<"$CUDA_VISIBLE_DEVICES" | grep -c .)
    [ "$visible" -lt "$gpus" ] && gpus=$visible
  fi
fi
if [ "$gpus" -eq 0 ] && [ "$phase" != build ]; then
  echo "$program: error: no GPU visible (nvidia-smi lists none); only --phase build runs without one" >&2
  exit 2
fi

nccl_tests="$(cd "$nccl_tests" && pwd)"
mkdir -p "$out" || usage_error "cannot create --out $out"
out="$(cd "$out" && pwd)"
build="${BUILD_DIR:-$root/build-gpu}"
case $build in /*) ;; *) build="$root/$build" ;; esac
# A build made elsewhere (--bundle): unpacked into $build once, before anything is written there;
# every call restores what a re-sync of the tree removed and exports the library path its
# programs need.
if [ -n "$bundle" ]; then
  [ "$build" = "$root/build-gpu" ] || usage_error "--bundle unpacks into $root/build-gpu; leave BUILD_DIR unset"
  bundle_line=$("$root/scripts/gpu-bundle.sh" unpack "$bundle" 2>&1) ||
    usage_error "--bundle $bundle could not be unpacked: ${bundle_line##*error: }"
  export LD_LIBRARY_PATH="${bundle_line#export LD_LIBRARY_PATH=}"
  export PATH="$build/bin:$PATH"  # the bundle's jq, for the gpu tests
fi
work="$build/verify"        # every phase's results, packed into OUT at the end of each phase
# Its steps remove their own earlier results in it: it must be this script's folder (scripts/owned.sh).
. "$root/scripts/owned.sh"
owned_folder_make "$work" "$program" || exit 2
mkdir -p "$work/logs"
bin="$build/bin" ntbin="$build/nccl-tests"
# collbench's ranks start under mpirun where there is one, else through scripts/launch-local.sh
# (as scripts/mpirun-local.sh decides; COLLBENCH_LOCAL_LAUNCHER=env chooses it where MPI exists too).
with_mpi=1
if [ "${COLLBENCH_LOCAL_LAUNCHER:-}" = env ] || ! command -v mpirun >/dev/null 2>&1; then with_mpi=0; fi
phase_start=$(date +%s)
status=0

log() { echo "[$program $(date -u +%H:%M:%S)] $*" | tee -a "$work/logs/console.log"; }
elapsed() { echo $(( $(date +%s) - phase_start )); }
over_budget() { [ "$(elapsed)" -ge "$budget" ]; }
# A run's time limit: its own, or what is left of the phase's budget plus 30 s if that is less, so a
# run in flight cannot carry the phase far past its budget (a lease ends the command at its limit,
# and nothing is packed then). The run stopped there is recorded as failed, its log kept.
limit_for() {
  local left=$(( budget - $(elapsed) + 30 ))
  [ "$left" -lt 10 ] && left=10
  if [ "$left" -lt "$1" ]; then echo "$left"; else echo "$1"; fi
}
# One line per step: phase, step, status, seconds, note (the summary's step table). Every step
# packs OUT as it ends: a lease stops a command at its limit and returns only what OUT holds then.
record() {
  printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" >> "$work/steps.tsv"
  pack quiet
}
# One line per side-by-side run: variant, repetition, collective, tool, wall seconds, ok|FAILED (the
# summary's run-time table: what a lease's minutes go to, start-up and set-up included).
record_run() { printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >> "$work/runs.tsv"; }
# Runs a command with a time limit, its output into a log; returns its exit code.
run_logged() {
  local limit=$1 logfile=$2; shift 2
  echo "\$ $*" >> "$logfile"
  timeout -k 10 "$limit" "$@" >> "$logfile" 2>&1
}

# Sizes, iterations and launch shape of the side-by-side runs (docs/gpu-verify.md says why).
if [ "$quick" = 1 ]; then
  collectives="all_reduce all_gather"; size_flags=(-b 8 -e 128M -f 4096)  # 8 B, 32 KiB, 128 MiB
  iterations=(-n 20 -w 5); repetitions=${repetitions:-3}
else
  collectives="all_reduce all_gather reduce_scatter broadcast reduce alltoall sendrecv"
  size_flags=(-b 8 -e 8G -f 2); iterations=(-n 20 -w 5); repetitions=${repetitions:-3}
fi
if [ -n "$sizes" ]; then
  IFS=, read -r min_size max_size size_factor <<<"$sizes"
  size_flags=(-b "$min_size" -e "$max_size" -f "$size_factor")
fi
# One rank per GPU for both tools; one GPU runs both as a plain process (no launcher at all).
# Prefixes as arrays, not functions: `timeout` runs programs only. nccl-tests was built with MPI
# or without (the build phase wrote which), which decides how it gets several GPUs.
set_launchers() {
  local nccl_tests_mpi=0
  [ -f "$work/nccl_tests_mpi" ] && nccl_tests_mpi=$(cat "$work/nccl_tests_mpi")
  collbench_prefix=() nccl_tests_prefix=() nccl_tests_gpus=(-g 1)
  # No MPI on this machine (a lent GPU machine often has none): collbench's ranks start through
  # its env bootstrap. One rank is a plain process given the one-rank variables (a bare one would
  # try MPI_Init as a singleton, which needs Open MPI's daemon); several start through
  # scripts/launch-local.sh.
  if [ "$with_mpi" = 0 ] && [ "$gpus" -le 1 ]; then
    collbench_prefix=(env RANK=0 LOCAL_RANK=0 WORLD_SIZE=1 LOCAL_WORLD_SIZE=1 MASTER_ADDR=127.0.0.1
                      MASTER_PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')")
  elif [ "$with_mpi" = 0 ]; then
    collbench_prefix=("$root/scripts/launch-local.sh" -np "$gpus")
    nccl_tests_gpus=(-g "$gpus")
  elif [ "$gpus" -gt 1 ]; then
    collbench_prefix=("$root/scripts/mpirun-local.sh" -np "$gpus")
    if [ "$nccl_tests_mpi" = 1 ]; then nccl_tests_prefix=("${collbench_prefix[@]}"); else nccl_tests_gpus=(-g "$gpus"); fi
  fi
}

# Versions: driver and card, CUDA, the NCCL library both tools load (ncclGetVersion), nccl-tests'.
# Written by the build phase, and by test or measure on a machine whose build came from elsewhere
# (built on another machine and copied, as with a lent GPU machine that has no MPI to build with).
record_versions() {
  local nccl_include=$1 nccl_library=$2 logs="$work/logs" tool
  [ -n "$nccl_library" ] || nccl_library=$(ldd "$bin/all_reduce_perf" 2>/dev/null | sed -n 's/.*libnccl[^ ]* => \([^ ]*\).*/\1/p')
  {
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(uname -n); cores: $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg)"
    if [ "$gpus" -gt 0 ] && [ -z "${GPU_VERIFY_ASSUME_GPUS:-}" ]; then
      nvidia-smi --query-gpu=index,name,driver_version,compute_cap,memory.total,pci.bus_id --format=csv,noheader |
        sed 's/^/gpu: /'
    else
      echo "gpu: none visible, build only"
    fi
    echo "cuda: $(nvcc --version 2>/dev/null | grep -m1 release | sed 's/.*release //')"
    # The code the programs were built from, as they recorded it at build time (every report's
    # context says the same), not the checkout here, which a bundle's build need not match.
    if [ -x "$bin/all_reduce_perf" ] && "$bin/all_reduce_perf" --version > "$logs/collbench-version.txt" 2>&1; then
      echo "collbench: $(sed -n '1s/^collbench \([^ ]*\).*/\1/p' "$logs/collbench-version.txt"); $(sed -n 's/^source: //p' "$logs/collbench-version.txt")"
    else
      echo "collbench: not built yet; the checkout is $(git -C "$root" describe --always --dirty 2>/dev/null || echo "unknown (no git here)")"
    fi
    echo "nccl-tests: $(grep -m1 -ho 'NCCL_TESTS_VERSION "[^"]*"' "$nccl_tests"/src/*.h 2>/dev/null | cut -d'"' -f2)"
    echo "nccl library: ${nccl_library:-not found}"
    if [ "$with_mpi" = 1 ]; then echo "mpi: $(mpirun --version 2>/dev/null | head -1)"
    else echo "mpi: none; collbench's ranks start through scripts/launch-local.sh (env bootstrap, no MPI_Init)"; fi
  } > "$work/versions.txt"
  if [ -n "$nccl_library" ] && [ -n "$nccl_include" ]; then
    printf '#include <cstdio>\n#include <nccl.h>\nint main() { int v = 0; if (ncclGetVersion(&v) != ncclSuccess) return 1; std::printf("%%d\\n", v); }\n' \
      > "$work/nccl_version.cpp"
    if g++ -o "$work/nccl_version" "$work/nccl_version.cpp" -I"$nccl_include" "$nccl_library" \
         -Wl,-rpath,"$(dirname "$nccl_library")" >> "$logs/build-collbench.log" 2>&1; then
      echo "nccl (ncclGetVersion): $("$work/nccl_version")" >> "$work/versions.txt"
    fi
  fi
  # nccl-tests prints its version line (with the NCCL it loaded) before it touches a device, so
  # this one-size run gives it on a machine without a GPU too.
  if [ -x "$ntbin/all_reduce_perf" ]; then
    # Into a file first: a grep that quits early would end the run with SIGPIPE mid-call on a GPU.
    timeout 60 "$ntbin/all_reduce_perf" -b 8 -e 8 -n 1 -w 0 -c 0 -g 1 > "$logs/nccl-tests-version.log" 2>&1
    echo "nccl-tests version line: $(grep -m1 '^# nccl-tests version' "$logs/nccl-tests-version.log")" >> "$work/versions.txt"
  fi
  for tool in bin/all_reduce_perf nccl-tests/all_reduce_perf; do
    [ -x "$build/$tool" ] && echo "$tool loads $(readlink -f "$(ldd "$build/$tool" | sed -n 's/.*libnccl[^ ]* => \([^ ]*\).*/\1/p')")" >> "$work/versions.txt"
  done
  rm -f "$work/nccl_version"
}

phase_build() {
  local arch=90 start=$(date +%s) logs="$work/logs"
  if [ "$gpus" -gt 0 ] && [ -z "${GPU_VERIFY_ASSUME_GPUS:-}" ]; then
    arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
  fi
  log "build: collbench with CUDA for sm_$arch into $build ($(nproc) cores)"
  : > "$logs/build-collbench.log"
  if run_logged 1200 "$logs/build-collbench.log" cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCOLLBENCH_CUDA=ON \
       -DCMAKE_CUDA_ARCHITECTURES="$arch" ${CMAKE_ARGS:-} &&
     run_logged 1200 "$logs/build-collbench.log" cmake --build "$build" -j "$(nproc)"; then
    record build collbench ok $(( $(date +%s) - start )) "sm_$arch"
  else
    record build collbench FAILED $(( $(date +%s) - start )) "see logs/build-collbench.log"; status=1
    log "build: collbench FAILED: $(grep -m1 -iE 'error' "$logs/build-collbench.log")"
  fi
  # nccl-tests against the NCCL collbench found, with MPI when this machine has it.
  local nccl_include nccl_library nccl_home mpi_flags=() mpi=0
  nccl_include=$(sed -n 's/^NCCL_INCLUDE_DIR:PATH=//p' "$build/CMakeCache.txt" 2>/dev/null)
  nccl_library=$(sed -n 's/^NCCL_LIBRARY:FILEPATH=//p' "$build/CMakeCache.txt" 2>/dev/null)
  nccl_home=$(dirname "${nccl_include:-/usr/local/cuda/include}")
  if command -v mpicc >/dev/null 2>&1; then
    mpi=1
    mpi_flags=(MPI=1 MPI_HOME="$(dirname "$(mpicc --showme:libdirs 2>/dev/null | awk '{print $1}')")")
  fi
  echo "$mpi" > "$work/nccl_tests_mpi"
  start=$(date +%s)
  log "build: nccl-tests from $nccl_tests (MPI=$mpi) into $ntbin"
  : > "$logs/build-nccl-tests.log"
  if run_logged 1200 "$logs/build-nccl-tests.log" make -C "$nccl_tests/src" -j "$(nproc)" VERBOSE=1 BUILDDIR="$ntbin" \
       NCCL_HOME="$nccl_home" CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}" \
       NVCC_GENCODE="-gencode=arch=compute_$arch,code=sm_$arch" "${mpi_flags[@]}"; then
    record build nccl-tests ok $(( $(date +%s) - start )) "MPI=$mpi sm_$arch"
  else
    record build nccl-tests FAILED $(( $(date +%s) - start )) "see logs/build-nccl-tests.log"; status=1
    log "build: nccl-tests FAILED: $(grep -m1 -iE 'error' "$logs/build-nccl-tests.log")"
  fi
  record_versions "$nccl_include" "$nccl_library"
}

# nccl-tests checks its own results (-c 1, every type): "Out of bounds values : N OK|FAILED".
anchor_check() {
  local collective=$1 start=$(date +%s) logs="$work/logs" wrong
  local test_min test_max test_factor
  IFS=, read -r test_min test_max test_factor <<<"$test_sizes"
  run_logged "$(limit_for 120)" "$logs/test-nccl-tests-$collective.log" "${nccl_tests_prefix[@]}" "$ntbin/${collective}_perf" \
    -b "$test_min" -e "$test_max" -f "$test_factor" -d all -c 1 -n 5 -w 2 "${nccl_tests_gpus[@]}"
  wrong=$(sed -n 's/^# Out of bounds values : \([0-9]*\).*/\1/p' "$logs/test-nccl-tests-$collective.log")
  case $wrong in
    0) record test "nccl-tests $collective -d all" ok $(( $(date +%s) - start )) "its check: 0 wrong" ;;
    "") record test "nccl-tests $collective -d all" FAILED $(( $(date +%s) - start )) "no check line, see logs/test-nccl-tests-$collective.log" ;;
    *) record test "nccl-tests $collective -d all" WRONG $(( $(date +%s) - start )) "its check: $wrong wrong" ;;
  esac
}

phase_test() {
  local start logs="$work/logs" collective op_flags code test_min test_max test_factor
  set_launchers
  mkdir -p "$work/test"
  IFS=, read -r test_min test_max test_factor <<<"$test_sizes"
  # The collectives first, in --collectives' order (the never-checked ones by default), each its
  # own step: a lease's time goes first to what no GPU has checked yet.
  for collective in ${test_collectives//,/ }; do
    if over_budget; then record test "$collective -d all" skipped 0 "phase budget spent"; continue; fi
    start=$(date +%s)
    op_flags=()
    case $collective in all_reduce|reduce|reduce_scatter) op_flags=(-o all) ;; esac
    rm -f "$work/test/$collective.json"
    log "test: $collective -b $test_min -e $test_max -f $test_factor -d all ${op_flags[*]} -c 1"
    run_logged "$(limit_for 300)" "$logs/test-$collective.log" "${collbench_prefix[@]}" "$bin/${collective}_perf" \
      -b "$test_min" -e "$test_max" -f "$test_factor" -d all "${op_flags[@]}" -c 1 -n 5 -w 2 -J "$work/test/$collective.json"
    code=$?
    case $code in
      0) record test "$collective -d all" ok $(( $(date +%s) - start )) "" ;;
      3) record test "$collective -d all" WRONG $(( $(date +%s) - start )) "wrong results (exit 3)"; [ $status = 0 ] && status=3 ;;
      *) record test "$collective -d all" FAILED $(( $(date +%s) - start )) "exit $code: $(grep -m1 'error' "$logs/test-$collective.log")"; status=1 ;;
    esac
    # The anchor's own check on the same sizes and types: whether NCCL's grouped send/receive to
    # the rank itself is right here (sendrecv), and its alltoall, which collbench calls natively.
    case $collective in sendrecv|alltoall) [ -x "$ntbin/${collective}_perf" ] && anchor_check "$collective" ;; esac
  done
  # ctest -L gpu passed on the H100 (20 of 24, 4 need two GPUs): after the collectives.
  if over_budget; then
    record test "ctest -L gpu" skipped 0 "phase budget spent"
  else
    start=$(date +%s)
    log "test: ctest -L gpu (exactly that label)"
    : > "$logs/ctest-gpu.log"
    if run_logged "$(limit_for 420)" "$logs/ctest-gpu.log" ctest --test-dir "$build" -L '^gpu$' --output-on-failure; then
      record test "ctest -L gpu" ok $(( $(date +%s) - start )) "$(grep -m1 'tests passed' "$logs/ctest-gpu.log")"
    else
      record test "ctest -L gpu" FAILED $(( $(date +%s) - start )) "$(grep -m1 'tests passed\|tests failed' "$logs/ctest-gpu.log")"; status=1
    fi
  fi
  # Communicators on NCCL (ncclCommInitRank, Split, Shrink, InitRankScalable where loaded): every
  # method must make and destroy its communicator. pt2pt_perf needs a GPU per rank of a pair, so it
  # runs only with 2+ GPUs (ctest -L gpu's gpu.pt2pt.* above).
  # Past the budget it is skipped like the collectives: a 10-second remainder killed it mid-run once.
  if over_budget; then record test "comm_init_perf nccl" skipped 0 "phase budget spent"; return; fi
  start=$(date +%s)
  if run_logged "$(limit_for 240)" "$logs/test-comm_init.log" "${collbench_prefix[@]}" "$bin/comm_init_perf" --backend nccl -n 5 -w 1 \
    -J "$work/test/comm_init.json"; then
    record test "comm_init_perf nccl" ok $(( $(date +%s) - start )) ""
  else
    record test "comm_init_perf nccl" FAILED $(( $(date +%s) - start )) "$(grep -m1 'error' "$logs/test-comm_init.log")"; status=1
  fi
}

# One side-by-side variant: every collective, nccl-tests then collbench (collbench first on even
# repetitions, so drift over the phase falls on both alike), same sizes, -n/-w, -c 0 and -a 1.
side_by_side() {
  local variant=$1; shift
  local extra=("$@") start=$(date +%s) rep collective dir order tool runs=0 failed=0 first_failure="" outcome=ok
  local run_start run_outcome run_ms
  for rep in $(seq 1 "$repetitions"); do
    dir="$work/collectives/$variant/r$rep"; mkdir -p "$dir"
    for collective in $collectives; do
      order="nccl-tests collbench"; [ $((rep % 2)) = 0 ] && order="collbench nccl-tests"
      for tool in $order; do
        if over_budget; then outcome=partial; break 3; fi
        runs=$((runs + 1)) run_start=$(date +%s%N) run_outcome=ok
        if [ "$tool" = nccl-tests ]; then
          run_logged "$(limit_for 240)" "$dir/nccl-tests-$collective.txt" "${nccl_tests_prefix[@]}" "$ntbin/${collective}_perf" "${size_flags[@]}" \
            "${iterations[@]}" -c 0 -a 1 "${extra[@]}" "${nccl_tests_gpus[@]}" ||
            { run_outcome=FAILED; failed=$((failed + 1)); [ -n "$first_failure" ] || first_failure="${dir#"$work"/}/nccl-tests-$collective.txt"; }
        else
          rm -f "$dir/collbench-$collective.json"
          run_logged "$(limit_for 240)" "$dir/collbench-$collective.log" "${collbench_prefix[@]}" "$bin/${collective}_perf" "${size_flags[@]}" \
            "${iterations[@]}" -c 0 -a 1 "${extra[@]}" -J "$dir/collbench-$collective.json" ||
            { run_outcome=FAILED; failed=$((failed + 1)); [ -n "$first_failure" ] || first_failure="${dir#"$work"/}/collbench-$collective.log"; }
        fi
        run_ms=$(( ($(date +%s%N) - run_start) / 1000000 ))
        record_run "$variant" "$rep" "$collective" "$tool" "$(printf '%d.%03d' $((run_ms / 1000)) $((run_ms % 1000)))" "$run_outcome"
      done
    done
    # A whole repetition (every collective once) is in OUT before the next one starts.
    pack quiet
  done
  local note="$runs runs (${size_flags[*]}), $failed failed"
  [ "$outcome" = ok ] || note+=", then the phase budget was spent"
  [ $failed = 0 ] || outcome=FAILED
  [ -z "$first_failure" ] || note+="; first: $first_failure: $(grep -m1 -iE 'error|failure' "$work/$first_failure" | cut -c1-160)"
  record measure "$variant" "$outcome" $(( $(date +%s) - start )) "$note"
  [ $failed = 0 ] || status=1
}

# matmul_perf bf16 and fp8 at 8192^3 next to bare_cuda's one cuBLASLt call, interleaved.
step_compute() {
  local start=$(date +%s) dir="$work/compute" rep dtype bare_type failed=0 dtypes="bfloat16 fp8" reps=3
  [ "$quick" = 1 ] && dtypes=bfloat16 && reps=1
  mkdir -p "$dir"
  for rep in $(seq 1 $reps); do
    for dtype in $dtypes; do
      over_budget && { record measure compute partial $(( $(date +%s) - start )) "phase budget spent"; return; }
      bare_type=$([ "$dtype" = fp8 ] && echo fp8 || echo bf16)
      rm -f "$dir/matmul-$dtype-r$rep.json"
      run_logged "$(limit_for 120)" "$dir/matmul-$dtype-r$rep.log" "$bin/matmul_perf" --device gpu -d "$dtype" --sizes 8192 -n 20 -w 5 -c 1 \
        -J "$dir/matmul-$dtype-r$rep.json" || failed=$((failed + 1))
      run_logged "$(limit_for 120)" "$dir/bare-gemm-$bare_type-r$rep.txt" "$bin/bare_cuda" gemm "$bare_type" 8192 8192 8192 20 5 || failed=$((failed + 1))
    done
  done
  record measure compute "$([ $failed = 0 ] && echo ok || echo FAILED)" $(( $(date +%s) - start )) "$failed failed"
  [ $failed = 0 ] || status=1
}

# copy_perf and membw_perf next to bare cudaMemcpyAsync copies: the copy ceiling of this card.
step_copy() {
  local start=$(date +%s) dir="$work/copy" failed=0 direction memory copy_max=1G
  [ "$quick" = 1 ] && copy_max=256M
  mkdir -p "$dir"
  rm -f "$dir/copy_perf.json" "$dir/membw.json"
  run_logged "$(limit_for 240)" "$dir/copy_perf.log" "$bin/copy_perf" -b 1M -e "$copy_max" -f 4 -n 20 -w 5 -J "$dir/copy_perf.json" || failed=$((failed + 1))
  [ "$quick" = 1 ] || run_logged "$(limit_for 120)" "$dir/membw.log" "$bin/membw_perf" --device gpu --sizes 1G -k copy,triad,memcpy -n 20 -w 5 \
    -J "$dir/membw.json" || failed=$((failed + 1))
  local bytes=$((1 << 30)); [ "$quick" = 1 ] && bytes=$((256 << 20))
  for direction in d2d h2d d2h; do
    for memory in pinned pageable; do
      [ "$direction" = d2d ] && [ "$memory" = pageable ] && continue
      [ "$quick" = 1 ] && [ "$direction" != d2d ] && continue
      run_logged "$(limit_for 120)" "$dir/bare-copy-$direction-$memory.txt" "$bin/bare_cuda" copy "$direction" "$memory" "$bytes" 20 5 ||
        failed=$((failed + 1))
    done
  done
  record measure copy "$([ $failed = 0 ] && echo ok || echo FAILED)" $(( $(date +%s) - start )) "$failed failed"
  [ $failed = 0 ] || status=1
}

step_capture() {
  local start=$(date +%s) dir="$work/capture"
  mkdir -p "$dir"; rm -f "$dir/all_reduce.json"
  if run_logged "$(limit_for 240)" "$dir/all_reduce.log" "${collbench_prefix[@]}" "$bin/all_reduce_perf" -b 8 -e 1G -f 8 -n 20 -w 5 -c 1 --capture-algo \
       -J "$dir/all_reduce.json"; then
    record measure capture ok $(( $(date +%s) - start )) ""
  else
    record measure capture FAILED $(( $(date +%s) - start )) "$(grep -m1 error "$dir/all_reduce.log")"; status=1
  fi
}

# collbench tune over NCCL_ALGO x NCCL_PROTO for all_reduce (docs/tune.md): the NCCL tuner file's
# first real test. One GPU is one rank, which moves nothing between devices: skipped there.
step_tune() {
  local start=$(date +%s) dir="$work/tune"
  if [ "$gpus" -lt 2 ]; then record measure tune skipped 0 "one GPU: NCCL has no algorithm worth tuning"; return; fi
  rm -rf "$dir"
  if run_logged "$(limit_for 600)" "$work/tune.log" "$bin/collbench" tune --np "$gpus" --launcher "${collbench_prefix[0]}" \
       --nccl-algos Ring,Tree --nccl-protos LL,LL128,Simple --runs 5 --max-runs 5 --out "$dir" --format markdown -- \
       "$bin/all_reduce_perf" -b 8 -e 64M -f 8 --placement out -n 20 -w 5 -c 1; then
    record measure tune ok $(( $(date +%s) - start )) "$(grep -c '^allreduce,' "$dir/nccl_tuner.conf") tuned range(s)"
  else
    record measure tune FAILED $(( $(date +%s) - start )) "$(tail -n 1 "$work/tune.log")"; status=1
  fi
}

# -T with a stopped process: the reliability tests' own scripts, on the GPU path. With one GPU,
# two matmul_perf ranks share it (a collective needs a GPU per rank); with 3+ GPUs, all_reduce.
step_timeout() {
  local start=$(date +%s) dir="$work/timeout" code
  mkdir -p "$dir"
  run_logged "$(limit_for 120)" "$dir/matmul-stopped-rank.log" bash "$root/tests/reliability/compute_fault.sh" "$bin"
  code=$?
  if [ "$gpus" -ge 3 ]; then
    run_logged "$(limit_for 120)" "$dir/all_reduce-stopped-rank.log" bash "$root/tests/reliability/fault.sh" "$bin" STOP 1 || code=1
  fi
  record measure timeout "$([ $code = 0 ] && echo ok || echo FAILED)" $(( $(date +%s) - start )) \
    "$(grep -h -m1 '^ok\|^FAIL' "$dir"/*.log | head -1)"
  [ $code = 0 ] || status=1
}

# -T on and off at 8 B, interleaved: the watchdog must not change small-message times.
step_tflag() {
  local start=$(date +%s) dir="$work/tflag" rep setting failed=0
  mkdir -p "$dir"
  for rep in 1 2 3; do
    for setting in 0 60; do
      over_budget && { record measure tflag partial $(( $(date +%s) - start )) "phase budget spent"; return; }
      rm -f "$dir/T$setting-r$rep.json"
      run_logged "$(limit_for 120)" "$dir/T$setting-r$rep.log" "${collbench_prefix[@]}" "$bin/all_reduce_perf" -b 8 -e 8 -n 2000 -w 200 -c 0 -T "$setting" \
        -J "$dir/T$setting-r$rep.json" || failed=$((failed + 1))
    done
  done
  record measure tflag "$([ $failed = 0 ] && echo ok || echo FAILED)" $(( $(date +%s) - start )) "$failed failed"
  [ $failed = 0 ] || status=1
}

# The optional steps of this wave's paths (issue 66). Each says why it did not run where this build
# or this machine lacks what it needs, so a lease's summary tells a missing feature from a failure.
# has_flag PROGRAM FLAG: whether PROGRAM's --help names FLAG.
has_flag() { [ -x "$bin/$1" ] && "$bin/$1" --help 2>/dev/null | grep -q -- "$2"; }
# optional_run STEP LOG LIMIT COMMAND...: runs it, records ok or FAILED with the log's first error.
optional_run() {
  local step=$1 logfile=$2 limit=$3 start=$(date +%s); shift 3
  if run_logged "$(limit_for "$limit")" "$logfile" "$@"; then
    record measure "$step" ok $(( $(date +%s) - start )) "${logfile#"$work"/}"
  else
    record measure "$step" FAILED $(( $(date +%s) - start )) "${logfile#"$work"/}: $(grep -m1 -i 'error' "$logfile" | cut -c1-160)"; status=1
  fi
}

# collbench explain on this lease's own reports: each collective's peak bus bandwidth against the
# expected-peak table's entry for this GPU, with the copy and memory ceilings measured here. The
# step's note puts the host's GPUs and links as the reports' NVML inventory has them beside the entry
# they picked (or why the model's name picked it), and nvidia-smi's own view of the links is kept
# beside, to check that reading on real hardware.
step_explain() {
  local dir="$work/explain" reports=() ceilings=() start=$(date +%s) beside
  "$bin/collbench" explain --help > /dev/null 2>&1 || { record measure explain skipped 0 "this build has no collbench explain"; return; }
  # The collective reports only: explain refuses a file of another kind named on its command line.
  mapfile -t reports < <({ find "$work/collectives" -name 'collbench-*.json'; find "$work/test" -name '*.json' ! -name 'comm_init.json'; } 2>/dev/null | sort)
  [ ${#reports[@]} -gt 0 ] || { record measure explain skipped 0 "no collective report yet (run collectives or the test phase first)"; return; }
  for ceiling in "$work/copy/membw.json" "$work/copy/copy_perf.json"; do [ -s "$ceiling" ] && ceilings+=(--ceilings "$ceiling"); done
  mkdir -p "$dir"; rm -f "$dir/explain.txt" "$dir/explain.json"  # run_logged appends: a step run again starts afresh
  { nvidia-smi nvlink -s; nvidia-smi topo -m; } > "$dir/nvidia-smi-links.txt" 2>&1
  if ! run_logged "$(limit_for 120)" "$dir/explain.txt" "$bin/collbench" explain "${ceilings[@]}" "${reports[@]}" ||
     ! run_logged "$(limit_for 60)" "$dir/explain.json" "$bin/collbench" explain --json "${ceilings[@]}" "${reports[@]}"; then
    record measure explain FAILED $(( $(date +%s) - start )) "explain/explain.txt: $(grep -h -m1 -i 'error' "$dir"/explain.* | cut -c1-160)"; status=1
    return
  fi
  # The log's first line is the command (run_logged); the JSON follows it.
  beside=$(python3 - "$dir/explain.json" <<'PY' 2>&1 | tr '\t\n' '  ' | cut -c1-600
import json, sys
text = open(sys.argv[1]).read()
explanations = json.JSONDecoder().raw_decode(text[text.index("{"):])[0]["explanations"]
gpu = [e for e in explanations if e["expected"].get("picked_by")]
e = (gpu or explanations)[0]
x = e["expected"]
line = (e.get("gpu_inventory") or "no NVML inventory in the reports") + "; expected: " + x["path"]
if x.get("picked_by"):
    line += " (picked by " + x["picked_by"] + (": " + x["pick_note"] if x.get("pick_note") else "") + ")"
print(line)
PY
)
  record measure explain ok $(( $(date +%s) - start )) "explain/explain.txt; $beside"
}

# replay_perf (docs/replay.md) on NCCL, the default backend where a GPU is visible: the committed
# one-rank fixture trace at as many ranks as GPUs (the ranks past the trace's only take part in
# making the communicators), checked (-c 1); with two GPUs or more also the real 2-rank DDP job's
# trace (recorded with torch), its all-reduces on a communicator of both ranks.
step_replay() {
  local dir="$work/replay" trace="$root/tests/replay/data/gpu-verify.trace.json" ddp="$root/tests/replay/data/torch/ddp.rank"
  [ -x "$bin/replay_perf" ] || { record measure replay skipped 0 "this build has no replay_perf"; return; }
  [ -f "$trace" ] || { record measure replay skipped 0 "no fixture trace ${trace#"$root"/}"; return; }
  mkdir -p "$dir"; rm -f "$dir/replay.json" "$dir/replay-ddp.json"
  optional_run replay "$dir/replay.log" 180 "${collbench_prefix[@]}" "$bin/replay_perf" --trace "$trace" -N 3 -c 1 -J "$dir/replay.json"
  [ "$gpus" -ge 2 ] && [ -f "${ddp}0.kineto.json" ] && optional_run replay "$dir/replay-ddp.log" 180 "${collbench_prefix[@]}" \
    "$bin/replay_perf" --trace "${ddp}0.kineto.json" --trace "${ddp}1.kineto.json" -N 3 -c 1 -J "$dir/replay-ddp.json"
  return 0
}

# Concurrent groups (docs/groups.md): with 4 GPUs or more, neighbouring pairs all-reduce at once
# (--split "DIV 2", nccl-tests' NCCL_TESTS_SPLIT syntax); with 2 or 3, a group needs every rank, so
# the grouped path runs with one group ("AND 0": its communicator, rows and aggregate), checked.
step_split() {
  local dir="$work/split" rule="AND 0"
  [ "$gpus" -ge 2 ] || { record measure split skipped 0 "one GPU: a group needs two ranks of their own"; return; }
  has_flag all_reduce_perf --split || { record measure split skipped 0 "this build's all_reduce_perf has no --split"; return; }
  [ "$gpus" -ge 4 ] && rule="DIV 2"
  mkdir -p "$dir"; rm -f "$dir/all_reduce.json"
  optional_run split "$dir/all_reduce.log" 180 "${collbench_prefix[@]}" "$bin/all_reduce_perf" --split "$rule" -b 8 -e 64M -f 8 -n 20 -w 5 -c 1 \
    -J "$dir/all_reduce.json"
}

# collbench's own NCCL tuner plugin (docs/tune.md): first that NCCL loads it (its INFO line names
# the plugin and the ABI version), then tune over Ring/Tree x LL/Simple writes the CSV and --verify
# runs it through the plugin at N ranks and at N-1 (where nothing may change).
step_tuner_plugin() {
  local dir="$work/tuner_plugin" plugin="$build/lib/libnccl-tuner-collbench.so" start=$(date +%s) code=0
  [ "$gpus" -ge 2 ] || { record measure tuner_plugin skipped 0 "one GPU: NCCL has no algorithm worth tuning"; return; }
  [ -f "$plugin" ] || { record measure tuner_plugin skipped 0 "this build has no collbench NCCL tuner plugin"; return; }
  rm -rf "$dir"; mkdir -p "$dir"
  local bench=("$bin/all_reduce_perf" -b 8 -e 64M -f 8 --placement out -n 20 -w 5 -c 1)
  run_logged "$(limit_for 60)" "$dir/load.log" env NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING NCCL_TUNER_PLUGIN="$plugin" \
    NCCL_TUNER_CONFIG_FILE=/dev/null "${collbench_prefix[@]}" "$bin/all_reduce_perf" -b 8 -e 8 -n 1 -w 0 || code=1
  grep -qE 'Using collbench \(v[456]\)' "$dir/load.log" || code=1
  run_logged "$(limit_for 300)" "$dir/tune.log" "$bin/collbench" tune --np "$gpus" --launcher "${collbench_prefix[0]}" \
    --nccl-algos Ring,Tree --nccl-protos LL,Simple --runs 3 --max-runs 5 --out "$dir/t" -- "${bench[@]}" || code=1
  run_logged "$(limit_for 300)" "$dir/verify.log" "$bin/collbench" tune --verify "$dir/t/nccl_tuner.conf" --nccl-tuner-plugin "$plugin" \
    --np "$gpus" --launcher "${collbench_prefix[0]}" --runs 3 --max-runs 5 --out "$dir/v" -- "${bench[@]}" || code=1
  if [ $code = 0 ]; then
    record measure tuner_plugin ok $(( $(date +%s) - start )) "loaded by NCCL; tune and --verify (N and N-1 ranks) passed"
  else
    record measure tuner_plugin FAILED $(( $(date +%s) - start )) "$(grep -h -m1 -iE 'error|Using collbench' "$dir"/*.log | cut -c1-160)"; status=1
  fi
}

phase_measure() {
  local step
  set_launchers
  [ "$quick" = 1 ] && [ "$steps" = "$default_steps" ] && steps="collectives,compute,copy"
  for step in ${steps//,/ }; do
    if over_budget; then record measure "$step" skipped 0 "phase budget spent"; continue; fi
    log "measure: $step"
    case $step in
      collectives) side_by_side plain ;;
      graph) side_by_side graph -G 2 ;;
      registered) side_by_side registered -R 2 ;;
      compute) step_compute ;;
      copy) step_copy ;;
      capture) step_capture ;;
      timeout) step_timeout ;;
      tflag) step_tflag ;;
      tune) step_tune ;;
      explain) step_explain ;;
      replay) step_replay ;;
      split) step_split ;;
      tuner_plugin) step_tuner_plugin ;;
    esac
  done
}

# Packs everything done so far into OUT: summary.md and one .tar.gz under 16 MiB (build logs are
# left out first when it would be larger). After every step quietly (record), and at the end.
pack() {
  local archive="$out/gpu-verify.tar.gz"
  python3 "$root/scripts/gpu-verify-summary.py" "$work" --collbench "$bin/collbench" > "$work/summary.md" 2> "$work/logs/summary.log" ||
    { echo "summary.md could not be made: $(tail -1 "$work/logs/summary.log")" > "$work/summary.md"; status=1; }
  # Written beside, then renamed: a command stopped mid-pack leaves the previous whole archive.
  cp "$work/summary.md" "$out/.summary.md.tmp" && mv "$out/.summary.md.tmp" "$out/summary.md"
  tar -czf "$archive.tmp" -C "$build" verify
  if [ "$(stat -c %s "$archive.tmp")" -gt $((16 << 20)) ]; then
    tar -czf "$archive.tmp" -C "$build" --exclude 'verify/logs/build-*' verify
  fi
  mv "$archive.tmp" "$archive"
  [ "${1:-}" = quiet ] || log "wrote $out/summary.md and $archive ($(stat -c %s "$archive") bytes)"
  # A testing aid: a pause after each step's packing, so that a test can stop the command after a
  # step it chose however fast the steps are (tests/gpuverify/h200_layout.sh).
  [ "${1:-}" != quiet ] || [ -z "${GPU_VERIFY_PAUSE_AFTER_STEP:-}" ] || sleep "$GPU_VERIFY_PAUSE_AFTER_STEP"
}

# The first step of every phase: what this machine has, printed and kept (preflight.txt): the
# driver, CUDA, the NCCL library the programs will load and its version, and MPI or none. NCCL
# comes from what the programs resolve, else the system's (ldconfig), else a pip wheel's
# (nvidia-nccl-cu13, as PyTorch brings on the H200 image), whose folder is then put on the library
# path. A test or measure phase stops here, with one line and exit 2, when something it needs is
# missing, instead of failing every run after it.
preflight() {
  local nccl_path="" nccl_from="" nccl_version="" driver="none visible" cuda="unknown" missing="" wheel_dir
  if [ "$gpus" -gt 0 ] && [ -z "${GPU_VERIFY_ASSUME_GPUS:-}" ]; then
    driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)
    cuda=$(nvidia-smi 2>/dev/null | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p' | head -1)
    cuda="${cuda:-unknown} (driver's)"
  fi
  command -v nvcc >/dev/null 2>&1 && cuda+="; nvcc $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')"
  if [ -x "$bin/all_reduce_perf" ]; then
    nccl_path=$(ldd "$bin/all_reduce_perf" 2>/dev/null | sed -n 's/.*libnccl[^ ]* => \(\/[^ ]*\).*/\1/p' | head -1)
    [ -n "$nccl_path" ] && nccl_from="what the programs load"
  fi
  if [ -z "$nccl_path" ]; then
    nccl_path=$(ldconfig -p 2>/dev/null | sed -n 's/.*libnccl\.so\.2 .*=> \(.*\)/\1/p' | head -1)
    [ -n "$nccl_path" ] && nccl_from="the system's (ldconfig)"
  fi
  if [ -z "$nccl_path" ]; then
    wheel_dir=$(python3 -c 'import os, nvidia.nccl as n; print(os.path.join(list(n.__path__)[0], "lib"))' 2>/dev/null)
    if [ -n "$wheel_dir" ] && [ -e "$wheel_dir/libnccl.so.2" ]; then
      nccl_path="$wheel_dir/libnccl.so.2" nccl_from="the pip wheel's (nvidia-nccl)"
      export LD_LIBRARY_PATH="$wheel_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    fi
  fi
  if [ -n "$nccl_path" ]; then
    # ncclGetVersion needs no device: 22807 is 2.28.7.
    nccl_version=$(python3 -c 'import ctypes, sys
v = ctypes.c_int(0)
ctypes.CDLL(sys.argv[1]).ncclGetVersion(ctypes.byref(v))
print(f"{v.value // 10000}.{v.value // 100 % 100}.{v.value % 100} ({v.value})")' "$nccl_path" 2>/dev/null)
  fi
  {
    echo "driver: $driver"
    echo "cuda: $cuda"
    echo "nccl: ${nccl_path:-none found} ${nccl_from:+($nccl_from)}${nccl_version:+, version $nccl_version}"
    if [ "$with_mpi" = 1 ]; then echo "mpi: $(mpirun --version 2>/dev/null | head -1)"
    else echo "mpi: none; one rank runs as a plain process, several through scripts/launch-local.sh"; fi
  } > "$work/preflight.txt"
  sed 's/^/preflight: /' "$work/preflight.txt" | while read -r line; do log "$line"; done
  # A phase that builds first finds NCCL through CMake, which may know folders ldconfig does not.
  { [ "$phase" = build ] || { [ "$phase" = all ] && [ -z "$bundle" ]; }; } && return 0
  command -v python3 >/dev/null 2>&1 || missing="python3 (the summary and the launchers need it)"
  [ -n "$missing" ] || [ -n "$nccl_path" ] ||
    missing="an NCCL library (none loaded by the programs, none in ldconfig, no pip nvidia-nccl wheel)"
  if [ -z "$missing" ] && [ -x "$bin/all_reduce_perf" ]; then
    local unresolved
    unresolved=$(ldd "$bin/all_reduce_perf" 2>/dev/null | sed -n 's/^[[:space:]]*\([^ ]*\) => not found.*/\1/p' | head -1)
    [ -z "$unresolved" ] || missing="$unresolved, which $bin/all_reduce_perf needs (ldd: not found)"
  fi
  if [ -n "$missing" ]; then
    echo "$program: error: missing $missing" >&2
    exit 2
  fi
}

# test and measure need what the build phase made on this machine.
# A build from elsewhere (--bundle) had no build phase here to record the versions: do it now.
need_build() {
  [ -x "$bin/all_reduce_perf" ] && [ -x "$bin/bare_cuda" ] ||
    usage_error "no CUDA build in $build (run --phase build first on this machine)"
  [ -x "$ntbin/all_reduce_perf" ] || usage_error "no nccl-tests build in $ntbin (run --phase build first on this machine)"
  [ -f "$work/versions.txt" ] || record_versions "" ""
}
[ "$gpus" -eq 0 ] && log "no GPU visible: building for sm_90, nothing runs"
preflight
# The machine's load when each phase starts, in the steps table: timings taken under load say so.
record "$phase" start ok 0 "load average $(cut -d' ' -f1-3 /proc/loadavg), $gpus GPU(s)"
case $phase in
  build) phase_build ;;
  test) need_build; phase_test ;;
  measure) need_build; phase_measure ;;
  all)
    if [ -n "$bundle" ]; then need_build; else phase_build; fi
    if [ $status = 0 ]; then
      phase_start=$(date +%s); phase_test
      phase_start=$(date +%s); phase_measure
    fi ;;
esac
pack
exit $status
