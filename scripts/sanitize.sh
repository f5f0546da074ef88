#!/usr/bin/env bash
# Builds collbench with AddressSanitizer and UndefinedBehaviorSanitizer in its own build folder
# and runs the unit and MPI tests there. By default (CI) every unit test and the MPI tests at 1 and
# 2 ranks plus the acceptance, corrupted-output, singleton and reliability tests, and a few runs
# launched without MPI (label bootstrap): the full matrix
# at 3 and 4 ranks takes over 15 minutes under ASan on 2 cores and adds no code path the 2-rank
# runs miss. SANITIZE_ALL=1 runs everything. Extra arguments go to ctest; a first argument
# --build-only builds the folder and runs nothing (.ci/run builds it while the test command runs).
#
# Leak checking is off (detect_leaks=0): Open MPI 4.1 keeps allocations from MPI_Init until exit
# by design (its component registry, hwloc topology, PMIx buffers), so LeakSanitizer would report
# them in every rank and drown any leak of ours; the soak test (results/reliability/) watches our
# memory instead. Every other ASan and UBSan finding fails the test that triggered it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${SANITIZE_BUILD_DIR:-$root/build-sanitize}"
build_only=0
if [ "${1:-}" = --build-only ]; then build_only=1; shift; fi
"$root/scripts/setup.sh"
# -O1 -g1: what ASan's own docs recommend for speed with usable reports (line tables, no full
# debug info), and it compiles the whole project markedly faster than -O2 -g on CI's 2 cores.
# The untimed code (report, flag parsers, summarizer, test programs: COLLBENCH_COLD_CODE_OPT in
# CMakeLists.txt) at -O0: the build took 622 CPU-s against 1008 at -O1 everywhere, and these tests
# 192 s against 150-162 s (the summarizer's History tests); the code the tests run at full size
# stays at -O1, as -O0 everywhere took 521 CPU-s but 371 s of tests (results/ci/README.md, 2026-12-02).
flags="-O1 -g1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
# clang (setup.sh installs it for the fuzzer) where it is there: it builds this configuration
# faster than g++ (in .ci/run on a 2-core VM: 422-427 s against 465 s), and the Release build stays
# with g++, so CI compiles the code with both. CUDA off: the GPU code cannot run on a machine without a GPU, and
# nvcc would only add minutes.
compiler=$(command -v clang++-14 || command -v clang++ || command -v g++)
cmake -S "$root" -B "$build" -DCMAKE_CXX_COMPILER="$compiler" -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS="$flags" \
  -DCOLLBENCH_BUILD_MICROBENCHMARKS=OFF -DCOLLBENCH_CUDA=OFF -DCOLLBENCH_COLD_CODE_OPT=-O0 >/dev/null
cmake --build "$build" -j "$(nproc)"
[ "$build_only" = 0 ] || exit 0
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=0:exitcode=99:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=98"
cd "$build"
export OMPI_MCA_pml="${OMPI_MCA_pml:-ob1}"  # as scripts/test.sh: no 0.2 s fabric search in every MPI_Init
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}"  # as scripts/test.sh: idle OpenMP threads sleep, not spin
start=$(date +%s)
if [ "${SANITIZE_ALL:-0}" = 1 ]; then
  ctest --output-on-failure -j "$(nproc)" -L 'unit|mpi|bootstrap' "$@"
else
  ctest --output-on-failure -j "$(nproc)" -L unit "$@"
  ctest --output-on-failure -j "$(nproc)" -L mpi \
    -R '\.np[12]$|acceptance|corrupted|singleton|report_exists|bad_usage(\.1|\.after_mpi\.1)?$|reliability\.(fault|options_differ|bad_command\.(np2|58)$)' "$@"
  # Runs without MPI (the Gloo control plane, the join, the file store), 2 and 3 ranks.
  ctest --output-on-failure -j "$(nproc)" -L bootstrap \
    -R 'run\.(all_reduce|sendrecv)\.np2|run\.all_gather\.np3|file\.np2|fault\.KILL\.rank2|duplicate_rank|world_size_mismatch|never_fills' "$@"
fi
echo "sanitize: unit and mpi tests clean under ASan+UBSan in $(( $(date +%s) - start ))s"
