#!/usr/bin/env bash
# pt2pt_perf --matrix under srun -N 4 (one task a node), its traffic over the shaped links, where
# host d (node4, rank 3) holds packets 10 ms each way and the others 0.1 ms: exactly the six
# ordered links touching rank 3 are flagged, at both sizes, naming four hosts; exit 3.
# usage: nodes_slow_link.sh SOURCE_DIR BIN_DIR STATE_DIR
set -uo pipefail
# shellcheck source=tests/slurm/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export OMPI_MCA_btl_tcp_if_include=$CB_SLURM_SHAPED_NET
srun_step matrix.out --mpi=pmix -N 4 -n 4 "$bin_dir/pt2pt_perf" --matrix --sizes 8,64K -n 5 -w 1 -c 1 -T 60 -J "$work/matrix.json"
status=$?
[ "$status" -eq 3 ] || fail "pt2pt_perf --matrix exited $status, want 3 (a slow link)"
jq -e '[.context.ranks[].host] == ["node1", "node2", "node3", "node4"]' matrix.json >/dev/null ||
  fail "ranks not one a node in order: $(jq -c '[.context.ranks[].host]' matrix.json)"
"$bin_dir/check_pt2pt_report" matrix.json --world-size 4 --mode latency --matrix --rows 24 --wrong zero --slow some \
  --expect-slow 0-3,1-3,2-3,3-0,3-1,3-2 --hosts 4 >check.txt 2>&1 || fail "$(cat check.txt)"
echo "ok: srun -N 4 pt2pt_perf --matrix flags exactly node4's six links"
