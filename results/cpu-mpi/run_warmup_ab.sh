#!/usr/bin/env bash
# Issue 42 item 3: CPU rows before and after the run's warm-up (nccl-tests': -w iterations at the
# largest case, then the smallest, before the first row), interleaved by `collbench ab` with at
# least 7 pairs a side, so a change beyond the runs' own noise shows as SLOWER or FASTER and
# everything else as SAME (or UNKNOWN where the runs cannot decide). Not a speed claim: the
# expected outcome is SAME everywhere on the CPU, where each row's own -w warm-up already covers
# what the run's warm-up adds (the GPU's slow first rows are item 3's lease check).
#
# usage: results/cpu-mpi/run_warmup_ab.sh BEFORE_BIN AFTER_BIN OUT_DIR
#   BEFORE_BIN: bin/ of a build of the commit before the change (16b3078, main just before it)
#   AFTER_BIN:  bin/ of a build with it
# Writes OUT_DIR/<case>/ (ab's A and B reports and logs) and OUT_DIR/summary.md (ab's markdown per
# case, with the exact command). Alone on the machine: about 6-10 minutes on 2 cores.
set -uo pipefail
[ $# -eq 3 ] || { echo "usage: $0 BEFORE_BIN AFTER_BIN OUT_DIR" >&2; exit 2; }
before=$1; after=$2; out=$3
for bin in "$before" "$after"; do
  [ -x "$bin/all_reduce_perf" ] || { echo "$0: no all_reduce_perf in $bin" >&2; exit 2; }
done
collbench="$after/collbench"
mkdir -p "$out"
summary="$out/summary.md"
{
  echo "# The run's warm-up, CPU rows before and after ($(date -u +%FT%TZ))"
  echo
  echo "before: \`$("$before/all_reduce_perf" --version 2>&1 | head -1)\`; after: \`$("$after/all_reduce_perf" --version 2>&1 | head -1)\`"
  echo "host: $(hostname), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$summary"

# NAME NP PROGRAM ARGS...: one interleaved comparison, 7 pairs first, up to 10 while undecided.
compare() {
  local name=$1 np=$2 program=$3
  shift 3
  local command=("$collbench" ab --np "$np" --runs 7 --max-runs 10 --timeout 300 --format markdown --out "$out/$name"
                 -- "$before/$program" "$@" ::: "$after/$program" "$@")
  echo "== $name"
  {
    echo
    echo "## $name"
    echo
    echo "\`collbench ab --np $np --runs 7 --max-runs 10 -- BEFORE/$program $* ::: AFTER/$program $*\`"
    echo
    "${command[@]}"
    echo
    echo "exit $?"
  } >>"$summary" 2>&1
}

# The collectives on the mpi backend, a sweep from small up and one that starts large (the case
# the warm-up is for), and the same on gloo where this build has it.
compare all_reduce-mpi-up 2 all_reduce_perf -b 8 -e 1M -f 4 -n 20 -w 5 -c 0
compare all_reduce-mpi-down 2 all_reduce_perf --sizes 1M,256K,64K,16K,4K,1K,256,64,8 -n 20 -w 5 -c 0
compare broadcast-mpi-down 2 broadcast_perf --sizes 1M,256K,64K,16K,4K,1K,256,64,8 -n 20 -w 5 -c 0
if "$after/all_reduce_perf" --version 2>&1 | grep -q 'backends:.*gloo'; then
  compare all_reduce-gloo-down 2 all_reduce_perf --backend gloo --sizes 1M,256K,64K,16K,4K,1K,256,64,8 -n 20 -w 5 -c 0
fi
# GEMM and STREAM on the CPU (one rank), whose rows now have the warm-up too.
compare matmul-cpu-down 1 matmul_perf --device cpu --sizes 512,256,128,64 -n 10 -w 2 -c 0
compare membw-cpu-down 1 membw_perf --device cpu --sizes 64M,16M,4M,1M -n 10 -w 2 -c 0
echo "summary: $summary"
