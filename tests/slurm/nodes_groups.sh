#!/usr/bin/env bash
# Concurrent groups (issue 62) under srun -N 4 -n 8 --ntasks-per-node=2 (ranks 2h and 2h+1 on node
# h+1), their traffic over the shaped links, where host d (node4) holds packets 10 ms each way and
# the others 0.2 ms. A slow link: in --groups pairs (rank r with r+4) the two pairs through node4,
# {2,6} and {3,7}, are the slowest. A slow host (rank 6 on node4 slowed 11x): in --groups host the
# slowest group is node4's {6,7}. Asserted as the order of the groups' busbw at the largest size
# (collbench table --groups summary), which the faults set by far; the SLOW verdicts (exit 3) rest
# on a 0.9 x margin (of the faster half's median) that load can cross, so either exit is taken.
# usage: nodes_groups.sh SOURCE_DIR BIN_DIR STATE_DIR
set -uo pipefail
# shellcheck source=tests/slurm/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export OMPI_MCA_btl_tcp_if_include=$CB_SLURM_SHAPED_NET
sweep=(-b 256K -e 256K -n 5 -w 1 -c 1 -T 60)
# slowest NAME WANT: the groups of NAME.json with the lowest busbw, as many as WANT names, in id order.
slowest() {
  "$bin_dir/collbench" table --groups summary --format json "$1.json" >"$1.summary" || fail "collbench table --groups summary $1.json"
  local got
  got=$(jq -r --argjson n "$(echo "$2" | tr , '\n' | wc -l)" \
    '[.tables[0].rows[] | select(.group != "all")] | sort_by(.busbw_gbps) | .[:$n] | map(.group) | sort | map(tostring) | join(",")' "$1.summary")
  [ "$got" = "$2" ] || fail "$1: the slowest groups are '$got', want '$2': $(jq -c '.tables[0].rows' "$1.summary")"
}
srun_step pairs.out --mpi=pmix -K0 -N 4 -n 8 --ntasks-per-node=2 "$bin_dir/all_reduce_perf" "${sweep[@]}" --groups pairs -J "$work/pairs.json"
status=$?
[ "$status" -eq 0 ] || [ "$status" -eq 3 ] || fail "all_reduce_perf --groups pairs exited $status, want 3 (or 0)"
jq -e '[.context.ranks[].host] == ["node1", "node1", "node2", "node2", "node3", "node3", "node4", "node4"]' pairs.json >/dev/null ||
  fail "ranks not two a node in order: $(jq -c '[.context.ranks[].host]' pairs.json)"
slowest pairs 2,3
srun_step host.out --mpi=pmix -K0 -N 4 -n 8 --ntasks-per-node=2 "$bin_dir/all_reduce_perf" "${sweep[@]}" --groups host \
  --inject-slowdown 1000 --inject-slowdown-rank 6 -J "$work/host.json"
status=$?
[ "$status" -eq 0 ] || [ "$status" -eq 3 ] || fail "all_reduce_perf --groups host exited $status, want 3 (or 0)"
slowest host 3
echo "ok: srun -N 4 -n 8: the pairs through node4's slow link and node4's slowed host are the slowest groups"
