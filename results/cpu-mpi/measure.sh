#!/usr/bin/env bash
# Reproduces the figures in this folder: the nine collectives at 2 and 4 ranks from 8 B to 64 MiB,
# and all_reduce_perf against the bare OSU-style MPI_Allreduce loop (bench/baselines).
# usage: results/cpu-mpi/measure.sh BUILD_BIN_DIR OUT_DIR
set -euo pipefail
bin=$1 out=$2
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mpirun_local="$here/../../scripts/mpirun-local.sh"
mkdir -p "$out"
for np in 2 4; do
  mkdir -p "$out/np$np"
  for collective in all_reduce broadcast reduce all_gather reduce_scatter alltoall gather scatter sendrecv; do
    "$mpirun_local" -np "$np" "$bin/${collective}_perf" -b 8 -e 64M -f 2 -n 20 -w 5 -c 1 -T 600 \
      -J "$out/np$np/$collective.json" --overwrite > "$out/np$np/$collective.txt"
  done
done
# Harness vs bare loop, 2 ranks, float32 sum, out of place, 8 B / 64 KiB / 1 MiB; interleaved
# five times so drift on the machine hits both alike.
for repeat in 1 2 3 4 5; do
  "$mpirun_local" -np 2 "$bin/bare_collective" all_reduce 8 65536 1048576 -n 20000 -w 1000 >> "$out/bare.txt"
  for aggregation in 3 1; do
    "$mpirun_local" -np 2 "$bin/all_reduce_perf" --sizes 8,64K,1M -n 20000 -w 1000 -c 0 --placement out \
      -a "$aggregation" -J "$out/harness-a$aggregation-$repeat.json" --overwrite > /dev/null
  done
done
