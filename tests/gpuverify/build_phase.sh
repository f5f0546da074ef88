#!/usr/bin/env bash
# On demand (minutes; not in CI): scripts/gpu-verify.sh --phase build for real, here without a GPU,
# into a scratch build folder: collbench with CUDA for sm_90, nccl-tests from NCCL_TESTS_DIR
# against the same NCCL, versions recorded, OUT holding summary.md and one .tar.gz. Then the
# measure plumbing with GPU_VERIFY_ASSUME_GPUS=1: the real nccl-tests and GPU programs fail here,
# collbench's collectives run on the CPU, and the phase must say which failed, exit 1, and still
# leave its two files in OUT.
# usage: build_phase.sh NCCL_TESTS_DIR
set -uo pipefail
nccl_tests=$1
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; tail -20 "$work/console"; exit 1; }
CUDA_VISIBLE_DEVICES= BUILD_DIR="$work/build" bash "$here/../../scripts/gpu-verify.sh" --nccl-tests "$nccl_tests" --out "$work/out" \
  --phase build >"$work/console" 2>&1 || fail "exit $?"
[ "$(ls "$work/out" | sort | tr '\n' ' ')" = "gpu-verify.tar.gz summary.md " ] || fail "OUT holds: $(ls "$work/out")"
for program in all_reduce_perf all_gather_perf reduce_scatter_perf broadcast_perf reduce_perf alltoall_perf sendrecv_perf; do
  [ -x "$work/build/bin/$program" ] || fail "collbench's $program was not built"
  [ -x "$work/build/nccl-tests/$program" ] || fail "nccl-tests' $program was not built"
done
[ -x "$work/build/bin/bare_cuda" ] || fail "bare_cuda was not built"
grep -q '^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=90$' "$work/build/CMakeCache.txt" || fail "collbench not configured for sm_90 alone"
# nccl-tests' own compile lines (VERBOSE=1), not the make command the log starts with.
grep -q -- '^.*/nvcc .*-gencode=arch=compute_90,code=sm_90 .*-c all_reduce.cu' "$work/build/verify/logs/build-nccl-tests.log" ||
  fail "nccl-tests' all_reduce.cu was not compiled for sm_90"
! grep -q -- '^.*/nvcc .*compute_[1-8][0-9]' "$work/build/verify/logs/build-nccl-tests.log" || fail "nccl-tests compiled for other architectures too"
grep -q '^nccl (ncclGetVersion): [0-9]\+$' "$work/build/verify/versions.txt" || fail "no NCCL version recorded"
grep -q '^nccl-tests: [0-9.]\+$' "$work/build/verify/versions.txt" || fail "no nccl-tests version recorded"
grep -q '^nccl-tests version line: # nccl-tests version [0-9.]* nccl-headers=[0-9]* nccl-library=[0-9]*$' "$work/build/verify/versions.txt" ||
  fail "nccl-tests' own version line not recorded"
grep -q '^| build | nccl-tests | ok |' "$work/out/summary.md" || fail "the summary does not show nccl-tests built"
# Listed into a file first: grep -q ending early would break tar's pipe, and pipefail would count it.
tar -tzf "$work/out/gpu-verify.tar.gz" > "$work/listing" && grep -q 'verify/logs/build-nccl-tests.log' "$work/listing" ||
  fail "the build log is not packed"
echo "ok: build phase: $(grep -E '^- (nccl|nccl-tests|cuda)' "$work/out/summary.md" | tr '\n' ' ')"

CUDA_VISIBLE_DEVICES= GPU_VERIFY_ASSUME_GPUS=1 BUILD_DIR="$work/build" bash "$here/../../scripts/gpu-verify.sh" \
  --nccl-tests "$nccl_tests" --out "$work/out2" --phase measure --quick --steps collectives,compute,tflag >"$work/console" 2>&1
code=$?
[ "$code" = 1 ] || fail "measure without a GPU exited $code (want 1)"
[ "$(ls "$work/out2" | sort | tr '\n' ' ')" = "gpu-verify.tar.gz summary.md " ] || fail "OUT holds: $(ls "$work/out2")"
grep -q '^| measure | plain | \*\*FAILED\*\* | [0-9]* | 12 runs, 6 failed; first: collectives/plain/r1/nccl-tests-all_reduce.txt: ' "$work/out2/summary.md" ||
  fail "the summary does not say that nccl-tests failed: $(grep '| measure' "$work/out2/summary.md")"
grep -q 'Failed runs left out: 6\.$' "$work/out2/summary.md" &&
  grep -Eq '^\| plain \| all_gather \| – \| [0-9]+\.[0-9] \(3\) \| – \|$' "$work/out2/summary.md" ||
  fail "the run wall times do not show 3 collbench runs and 6 failed nccl-tests runs: $(grep -A6 'Run wall' "$work/out2/summary.md")"
grep -q '^| measure | compute | \*\*FAILED\*\* |' "$work/out2/summary.md" || fail "the compute step did not fail without a GPU"
grep -q '^| measure | tflag | ok |' "$work/out2/summary.md" || fail "the -T step (collbench on the CPU here) did not run"
grep -q '^| build | nccl-tests | ok |' "$work/out2/summary.md" || fail "the measure phase's summary lost the build phase's steps"
tar -tzf "$work/out2/gpu-verify.tar.gz" > "$work/listing" &&
  grep -q 'verify/collectives/plain/r3/collbench-all_gather.json' "$work/listing" || fail "reports not packed"
echo "ok: measure plumbing: $(grep '^| measure' "$work/out2/summary.md" | cut -c1-80 | tr '\n' ' ')"
