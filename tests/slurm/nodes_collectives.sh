#!/usr/bin/env bash
# srun -N 4 -n 8 --ntasks-per-node=2 across the four simulated hosts (PMIx wire-up across hosts):
# all_reduce and alltoall with checks. Each report must pass check_report, name the four nodes in
# context.hosts and the Slurm node list, place two ranks on each, and record each host's machine
# once with its ranks (context.machine.per_host).
# usage: nodes_collectives.sh SOURCE_DIR BIN_DIR STATE_DIR
set -uo pipefail
# shellcheck source=tests/slurm/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
for collective in all_reduce alltoall; do
  srun_step "$collective.out" --mpi=pmix -K -N 4 -n 8 --ntasks-per-node=2 "$bin_dir/${collective}_perf" -b 8 -e 64K -f 8 -n 2 -w 1 -c 1 \
    -T 60 -J "$work/$collective.json" || fail "srun -N 4 -n 8 --ntasks-per-node=2 ${collective}_perf exited $?"
  "$bin_dir/check_report" "$collective.json" --benchmark "$collective" --world-size 8 >check.txt 2>&1 || fail "$(cat check.txt)"
  "$bin_dir/report_hosts" "$collective.json" --expect 4 >hosts.txt || fail "$(cat hosts.txt)"
  jq -e '.context.scheduler.job_node_list == "node[1-4]" and .context.scheduler.nnodes == "4"
         and ([.context.ranks[].host] | group_by(.) | map(length)) == [2, 2, 2, 2]
         and (.context.hosts | sort) == ["node1", "node2", "node3", "node4"]' "$collective.json" >/dev/null ||
    fail "$collective.json: not 8 ranks over node[1-4]: $(jq -c '{scheduler: .context.scheduler.job_node_list, ranks: [.context.ranks[].host]}' "$collective.json")"
  jq -e '.context.machine.per_host as $hosts | ($hosts | length) == 4
         and ([$hosts[].host] | sort) == ["node1", "node2", "node3", "node4"]
         and ([$hosts[].ranks | length] | unique) == [2]
         and ([$hosts[].ranks[]] | sort) == [0, 1, 2, 3, 4, 5, 6, 7]
         and all($hosts[]; (.cpu_model | length) > 0 and .threads > 0 and .memory_bytes > 0)' "$collective.json" >/dev/null ||
    fail "$collective.json: context.machine.per_host does not describe the four hosts: $(jq -c .context.machine.per_host "$collective.json")"
done
echo "ok: srun -N 4 -n 8: all_reduce and alltoall checked on $(jq -r .context.scheduler.job_node_list all_reduce.json), two ranks a node"
