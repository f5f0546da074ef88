#!/usr/bin/env bash
# Configures and builds collbench into ${BUILD_DIR:-build}. Executables land in <build>/bin.
#
# usage: scripts/build.sh [--suite]
#   (no argument)  everything: the programs, collbench, the tests, the micro-benchmarks and the
#                  baselines, with the CUDA code wherever the toolkit is found (COLLBENCH_CUDA=AUTO),
#                  GPU or not, so the test command compiles it and CI catches breakage there
#   --suite        only what the main job runs (scripts/run-suite.sh): the collective programs and
#                  collbench, and CUDA only where a GPU is visible (or CMAKE_ARGS asks for it); the
#                  same folder serves a later full build, which then compiles only what is missing
# Environment: BUILD_DIR, BUILD_TYPE (default Release), CMAKE_ARGS (extra configure arguments).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build}"
build_type="${BUILD_TYPE:-Release}"
mode=all
case "${1:-}" in
  "") ;;
  --suite) mode=suite ;;
  *) echo "build.sh: error: unknown argument '$1' (usage: scripts/build.sh [--suite])" >&2; exit 2 ;;
esac
read -r -a extra_args <<< "${CMAKE_ARGS:-}"
# The CUDA setting is said every time, so a folder the main job configured without CUDA gets it
# back for the tests; a setting in CMAKE_ARGS wins.
if [[ " ${CMAKE_ARGS:-} " != *" -DCOLLBENCH_CUDA="* ]]; then
  cuda=AUTO
  if [ "$mode" = suite ] && ! { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; }; then
    cuda=OFF  # no GPU to run it on: the main job compiles no CUDA
  fi
  extra_args+=("-DCOLLBENCH_CUDA=$cuda")
fi
# The tests and micro-benchmarks likewise (the main job's set-up installs no test frameworks).
for part in COLLBENCH_BUILD_TESTS COLLBENCH_BUILD_MICROBENCHMARKS; do
  if [[ " ${CMAKE_ARGS:-} " != *" -D$part="* ]]; then
    extra_args+=("-D$part=$([ "$mode" = suite ] && echo OFF || echo ON)")
  fi
done
cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE="$build_type" "${extra_args[@]}" >/dev/null
if [ "$mode" = suite ]; then
  cmake --build "$build_dir" --target suite_programs -j "$(nproc)"
else
  cmake --build "$build_dir" -j "$(nproc)"
fi
