#!/usr/bin/env bash
# Fuzzes the report reader (and the summarizer's pure functions, when built) with libFuzzer for a
# bounded time, starting from the committed seed corpus (tests/fuzz/corpus) and the malformed
# report files. New interesting inputs go to a scratch corpus, never into the repository.
# usage: scripts/fuzz.sh [SECONDS | --build-only]   (default 60; FUZZ_BUILD_DIR picks the build
# folder; --build-only builds the fuzzer and runs nothing, as .ci/run does while the tests run)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-60}"
build_only=0
if [ "$seconds" = --build-only ]; then
  build_only=1
elif ! [[ "$seconds" =~ ^[1-9][0-9]{0,5}$ ]]; then
  echo "fuzz: error: SECONDS must be a whole number from 1 to 999999, not '$seconds' (usage: scripts/fuzz.sh [SECONDS | --build-only])" >&2
  exit 2
fi
build="${FUZZ_BUILD_DIR:-$root/build-fuzz}"
"$root/scripts/setup.sh"
compiler=$(command -v clang++-14 || command -v clang++ || true)
[ -n "$compiler" ] || { echo "fuzz: error: clang++ not found (scripts/setup.sh installs clang-14)" >&2; exit 1; }
flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
# -O1 and line tables, as libFuzzer's own documentation builds its targets: the reports keep their
# file and line, and the largest file (model.cpp) compiles in a fifth less time than at -O2 -g.
# Not COLLBENCH_COLD_CODE_OPT=-O0 as scripts/sanitize.sh: the fuzzed code is the report reader and the
# summarizer, and at -O0 the fuzzer ran 387 inputs a second against 3488 (alone, 20 s each,
# 2026-12-02, results/ci/README.md).
cmake -S "$root" -B "$build" -DCMAKE_CXX_COMPILER="$compiler" -DCMAKE_BUILD_TYPE=None \
  -DCMAKE_CXX_FLAGS="-O1 -gline-tables-only $flags" -DCOLLBENCH_FUZZ=ON -DCOLLBENCH_BUILD_MICROBENCHMARKS=OFF -DCOLLBENCH_CUDA=OFF >/dev/null
cmake --build "$build" --target fuzz_report -j "$(nproc)"
[ "$build_only" = 0 ] || exit 0
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export ASAN_OPTIONS="detect_leaks=1"
start=$(date +%s)
"$build/bin/fuzz_report" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 "$scratch" "$root/tests/fuzz/corpus" "$root/tests/data/malformed"
echo "fuzz: fuzz_report clean for $(( $(date +%s) - start ))s"
