#!/usr/bin/env bash
# context.options is generated from each program's declared flags (core/command_line.h: what a
# flag records, beside its declaration): for every program, one run with non-default flags at one
# rank (two for pt2pt_perf) must record exactly the fields and values in options_recorded/, which
# are today's report schema (docs/report-schema.md) and what `collbench compare` checks for
# "options differ". usage: options_recorded.sh BIN_DIR DATA_DIR [CASE...]
set -uo pipefail
bin_dir=$1 data_dir=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
unset NCCL_TESTS_MIN_BW
failures=0

# name | ranks | program and flags
cases=(
  "all_reduce|1|all_reduce_perf -b 8 -e 64 -f 2 -d float32,int32 -o sum,max -r 0 -a 3 --placement out -m 2 -u 1 -B 2 --min-busbw 0 --seed 7 -T 60 --samples -c 2"
  "all_reduce_sizes|1|all_reduce_perf --sizes 8,32 --inject-slowdown 5 --inject-slowdown-rank 0 -N 2"
  "broadcast_step|1|broadcast_perf -b 8 -e 32 -i 8 -r all --placement in -g 1"
  "alltoallv|1|alltoallv_perf -b 64 -e 64 --pattern zipf:1.5 -w 0 -n 2"
  "matmul|1|matmul_perf --sizes 8,16 -d float32,float64 --rotate 2 -t 1 -w 1 -n 2 --device cpu"
  "matmul_shapes|1|matmul_perf --shapes 8x4x2 -w 0 -n 1"
  "membw|1|membw_perf --sizes 1K,2K -k copy,triad -t 1 -w 0 -n 2"
  "envcheck|1|envcheck --repeats 2 --probe-ms 1 --probe-n 16 --probe-bytes 4K --slow-factor 2 -w 0 -t 1"
  "copy|1|copy_perf -b 8 -e 64 --host-only -w 0 -n 2"
  "ddp|1|ddp_step_perf --batch 2 --bucket-mb 1,5 --overlap on,off --compute-scale 0.01 --memory-gbps 5 -t 1 -w 0 -n 1"
  "ddp_global|1|ddp_step_perf --global-batch 4 --first-bucket-mb 2 --ddp-version 1 --grad-dtype float16 --accumulate 1,2 -w 0 -n 1 --memory-gbps 5"
  "pt2pt|2|pt2pt_perf --mode bw -b 8 -e 64 -W 4 --pair 1,0 --seed 3"
  "pt2pt_matrix|2|pt2pt_perf --matrix --sizes 8 --slow-link-factor 3 -n 2 -w 1"
  "pt2pt_fan|4|pt2pt_perf --pattern fan-out --root 1 --senders 2 --sizes 8 -W 4 -n 2 -w 1"
  "comm_init|1|comm_init_perf --comm-sizes 1 -w 0 -n 2"
  "comm_init_default|1|comm_init_perf -w 0 -n 1"
  # The 2-rank DDP trace as one rank (its calls are all on the world), by the names copied below.
  "replay|1|replay_perf --trace ddp.rank0.kineto.json --trace ddp.rank1.kineto.json --scale 1 --scale-counts total --gaps trace -n 2 -w 0 -c 0"
  "replay_default|1|replay_perf --trace ddp.rank0.kineto.json --trace ddp.rank1.kineto.json --scale 1 -n 1 -w 0"
)
# replay_perf records its trace's file names as given: the runs are in $work, beside copies.
cp "$data_dir"/../../replay/data/torch/ddp.rank[01].kineto.json "$work"/
cd "$work" || exit 1
for entry in "${cases[@]}"; do
  IFS='|' read -r name ranks command <<<"$entry"
  if [ $# -gt 0 ] && [[ " $* " != *" $name "* ]]; then continue; fi
  read -r -a words <<<"$command"
  program=${words[0]}
  launch=("$bin_dir/$program")
  [ "$ranks" -gt 1 ] && launch=(mpirun -np "$ranks" "$bin_dir/$program")
  report="$work/$name.json"
  "${launch[@]}" "${words[@]:1}" -J "$report" >"$work/$name.out" 2>&1
  status=$?
  if [ "$status" -ne 0 ]; then
    echo "FAIL $name: exit $status from $command"; tail -5 "$work/$name.out"; failures=$((failures + 1)); continue
  fi
  jq -S '.context.options' "$report" >"$work/$name.options"
  if [ -n "${OPTIONS_RECORDED_WRITE:-}" ]; then cp "$work/$name.options" "$data_dir/$name.json"; continue; fi
  if ! diff -u "$data_dir/$name.json" "$work/$name.options"; then
    echo "FAIL $name: context.options differs from $data_dir/$name.json ($command)"; failures=$((failures + 1))
  else
    echo "ok $name"
  fi
done
[ "$failures" -eq 0 ]
