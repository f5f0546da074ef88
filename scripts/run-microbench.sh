#!/usr/bin/env bash
# Builds and runs the host-side Google Benchmark micro-benchmarks; writes JSON and a console copy to
# results/micro/<UTC timestamp>/ with the machine and the exact command.
# usage: scripts/run-microbench.sh [extra google-benchmark flags, e.g. --benchmark_filter=Fold]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build}"
"$root/scripts/build.sh" >/dev/null
out="$root/results/micro/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"
# Paths as seen from the repository root, so the committed record carries no machine paths.
shown_bin="${build_dir#"$root"/}/bin/micro_host_paths"
shown_out="${out#"$root"/}"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(uname -n), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores"
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "command: $shown_bin --benchmark_out=$shown_out/micro_host_paths.json --benchmark_out_format=json $*"
} > "$out/machine.txt"
"$build_dir/bin/micro_host_paths" --benchmark_out="$out/micro_host_paths.json" --benchmark_out_format=json "$@" | tee "$out/console.txt"
echo "results: $out"
