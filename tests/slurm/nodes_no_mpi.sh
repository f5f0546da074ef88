#!/usr/bin/env bash
# srun --mpi=none -N 4 -n 4: no MPI anywhere; each task finds the store on the step's first node
# (node1, resolved on every host) and the ranks run gloo across the four hosts. The report must be
# one 4-rank world on four nodes, over the store at node1's address.
# usage: nodes_no_mpi.sh SOURCE_DIR BIN_DIR STATE_DIR
set -uo pipefail
# shellcheck source=tests/slurm/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
node1=${CB_SLURM_PLAIN_NET%.0/24}.1
timeout 100 srun --mpi=none -K -N 4 -n 4 "$bin_dir/all_reduce_perf" --backend gloo -b 8 -e 64K -f 8 -n 2 -w 1 -c 1 \
  --placement out -T 60 -J "$work/r.json" >r.out 2>&1 || fail "srun --mpi=none -N 4 all_reduce_perf exited $?"
"$bin_dir/check_report" r.json --benchmark all_reduce --world-size 4 --placements out >check.txt 2>&1 || fail "$(cat check.txt)"
"$bin_dir/report_hosts" r.json --expect 4 >hosts.txt || fail "$(cat hosts.txt)"
jq -e --arg store "over the TCP store at $node1:" '.context.backend == "gloo" and .context.versions.mpi == null
       and (.context.versions.control_plane | contains($store))' r.json >/dev/null ||
  fail "not gloo over the store on node1 ($node1): $(jq -c '.context | {backend, versions}' r.json)"
echo "ok: srun --mpi=none -N 4: gloo across node[1-4], $(jq -r .context.versions.control_plane r.json)"
