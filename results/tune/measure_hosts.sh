#!/usr/bin/env bash
# all_reduce tuned across the simulated hosts of the multi-node local Slurm (scripts/slurm/up.sh
# --nodes 4, unshaped links): 2 ranks on 2 nodes, then 4 ranks on 4 nodes, one rank a node, the
# same tune and verification as measure.sh. A step that Open MPI's TCP wire-up kills (docs/slurm.md)
# fails its run; the same tune command again resumes from the complete run pairs, up to 3 times.
# usage (root, from the repository root, after scripts/build.sh): results/tune/measure_hosts.sh
set -u
out_root=${OUT_ROOT:-results/tune/hosts}
mkdir -p "$out_root"
export CB_SLURM_STATE=${CB_SLURM_STATE:-/tmp/collbench-slurm-tune}
scripts/slurm/up.sh --nodes 4 --traffic plain --bin-dir build/bin >"$out_root/up.txt" 2>&1 || { cat "$out_root/up.txt"; exit 1; }
trap 'scripts/slurm/down.sh >>"$out_root/up.txt" 2>&1' EXIT
# shellcheck source=/dev/null
. "$CB_SLURM_STATE/env.sh"
export OMPI_MCA_pml=ob1 OMPI_MCA_mpi_yield_when_idle=1
benchmark=(build/bin/all_reduce_perf -b 8 -e 16M -f 4 --placement out -n 20 -w 5)
with_retries() {
  local try
  for try in 1 2 3 4; do
    "$@" && return 0
    [ $? -eq 1 ] || return 1
    echo "try $try failed (exit 1): again" >&2
  done
  return 1
}
for np in 2 4; do
  out=$out_root/all_reduce-np$np
  launcher="srun --mpi=pmix -N $np --ntasks-per-node=1"
  echo "all_reduce np $np on $np nodes tune before: $(date -u +%H:%M:%S) $(uptime | sed 's/.*load/load/')" >>"$out_root/load.txt"
  with_retries build/bin/collbench tune --launcher "$launcher" --np "$np" --mpi-algorithms all --runs 10 --max-runs 12 \
    --out "$out" --format markdown -- "${benchmark[@]}" >"$out.decision.md" 2>>"$out.decision.err"
  echo "all_reduce np $np tune exit $? after: $(date -u +%H:%M:%S) $(uptime | sed 's/.*load/load/')" >>"$out_root/load.txt"
  with_retries build/bin/collbench tune --verify "$out/ompi-rules.conf" --launcher "$launcher" --np "$np" --runs 10 --max-runs 12 \
    --out "$out-verify" --format markdown -- "${benchmark[@]}" >"$out.verify.md" 2>>"$out.verify.err"
  echo "all_reduce np $np verify exit $? after: $(date -u +%H:%M:%S) $(uptime | sed 's/.*load/load/')" >>"$out_root/load.txt"
done
echo "done" >>"$out_root/load.txt"
