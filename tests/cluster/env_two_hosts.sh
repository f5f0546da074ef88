#!/usr/bin/env bash
# CTest cluster.env_two_hosts: a run without MPI across the simulated cluster's two hosts. Rank 0
# runs in host a's namespace and serves the rendezvous store on MASTER_ADDR (its address on the
# plain link), rank 1 runs in host b's; each under its own host name, started by this script as
# a person would on two machines. The report must pass check_report, name two hosts and record
# the plain link's interface, and no namespace may remain.
# Exit 77 (skipped) where the machine cannot host the simulation: not root, no `ip netns`.
# usage: env_two_hosts.sh SOURCE_DIR BIN_DIR
set -uo pipefail
source_dir=$1 bin_dir=$2
skip() { echo "SKIP: simulated two-host cluster: $*"; exit 77; }
# shellcheck source=../../scripts/cluster/lib.sh
source "$source_dir/scripts/cluster/lib.sh"
why=$(cluster_unavailable unshare timeout)
[ -z "$why" ] || skip "$why"
export CB_CLUSTER_PREFIX="cbe$$"  # own namespace names: a person's cluster is left alone
MTU=1500
work=$(mktemp -d)
trap 'cluster_down >/dev/null 2>&1; rm -rf "$work"' EXIT
cluster_up 2>"$work/up.log" || { echo "FAIL: the cluster did not come up"; cat "$work/up.log"; exit 1; }

report="$work/report.json"
port=29511  # inside the namespaces nothing else listens
# start_on SIDE RANK: one rank in that host's namespace, under that host's name.
start_on() {
  local ns=$1 rank=$2
  # shellcheck disable=SC2016  # expanded by the inner sh
  timeout -k 5 120 ip netns exec "$ns" unshare --uts -- sh -c 'hostname "$1" && shift && exec "$@"' start "$ns" \
    env RANK="$rank" WORLD_SIZE=2 LOCAL_RANK=0 LOCAL_WORLD_SIZE=1 MASTER_ADDR="$PLAIN_A" MASTER_PORT="$port" \
    "$bin_dir/all_reduce_perf" -b 8 -e 1M -f 32 -n 3 -w 1 -c 1 -T 30 -J "$report" >"$work/out.$rank" 2>"$work/err.$rank"
}
start_on "$NS_A" 0 &
rank0=$!
start_on "$NS_B" 1 &
rank1=$!
failed=0
wait "$rank0" || { echo "FAIL: rank 0 (on $NS_A) exited $?"; failed=1; }
wait "$rank1" || { echo "FAIL: rank 1 (on $NS_B) exited $?"; failed=1; }
if [ "$failed" -ne 0 ]; then
  tail -5 "$work"/err.* "$work/out.0"
  exit 1
fi
"$bin_dir/check_report" "$report" --benchmark all_reduce --world-size 2 --wrong zero || failed=1
"$bin_dir/report_hosts" "$report" --expect 2 || failed=1
grep -q "\"control_plane\": \"gloo [0-9.]* over the TCP store at $PLAIN_A:$port\"" "$report" ||
  { echo "FAIL: the report does not record the store on $PLAIN_A:$port"; failed=1; }
grep -q "\"gloo_iface\": \"$VETH\"" "$report" || { echo "FAIL: gloo did not use the plain link ($VETH)"; failed=1; }
cluster_down >/dev/null 2>&1
for side in a b; do
  [ -e "/run/netns/$CB_CLUSTER_PREFIX-host-$side" ] && { echo "FAIL: namespace $CB_CLUSTER_PREFIX-host-$side left behind"; failed=1; }
done
grep -E "^ +[0-9]+ " "$work/out.0" | tail -2
[ "$failed" -eq 0 ] && echo "ok: a run without MPI across two hosts ($NS_A, $NS_B)"
exit "$failed"
