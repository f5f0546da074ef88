#!/usr/bin/env bash
# Side by side in one run: matmul_perf float32 vs a bare cblas_sgemm, and membw_perf triad vs a
# plain OpenMP triad, each timed the same way (monotonic clock per call, warm-up excluded, mean).
# usage: results/compute/run-comparison.sh BIN_DIR  (one rank, no mpirun, 2 threads)
set -u
bin=$1
echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ); host: $(uname -n); cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-); cores: $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg)"
for coretype in unset SkylakeX; do
  if [ "$coretype" = unset ]; then run=(env -u OPENBLAS_CORETYPE); else run=(env OPENBLAS_CORETYPE=$coretype); fi
  for n in 1024 2048; do
    echo "== OPENBLAS_CORETYPE=$coretype N=$n"
    echo "\$ ${run[*]} $bin/matmul_perf --sizes $n -n 10 -w 3 --threads 2 --rotate 1"
    "${run[@]}" "$bin/matmul_perf" --sizes $n -n 10 -w 3 --threads 2 --rotate 1 2>/dev/null | grep -E "^ +[0-9]"
    echo "\$ ${run[*]} $bin/matmul_perf --sizes $n -n 10 -w 3 --threads 2   (default: rotate input sets past the LLC)"
    "${run[@]}" "$bin/matmul_perf" --sizes $n -n 10 -w 3 --threads 2 2>/dev/null | grep -E "^ +[0-9]"
    echo "\$ ${run[*]} $bin/bare_sgemm $n 10 3 2"
    "${run[@]}" "$bin/bare_sgemm" $n 10 3 2
  done
done
echo "== triad, 128 MiB per array, 2 threads"
echo "\$ OMP_NUM_THREADS=2 $bin/membw_perf --sizes 128M -k triad -n 10 -w 3 --threads 2"
OMP_NUM_THREADS=2 "$bin/membw_perf" --sizes 128M -k triad -n 10 -w 3 --threads 2 | grep -E "^ +[0-9]"
echo "\$ OMP_NUM_THREADS=2 $bin/bare_stream_triad 134217728 10 3"
OMP_NUM_THREADS=2 "$bin/bare_stream_triad" 134217728 10 3
