#!/usr/bin/env bash
# CTest cluster.two_hosts: scripts/cluster/run.sh in its short mode over the plain and the shaped
# link, then every report must pass check_report, name two hosts, and no namespace may remain.
# Exit 77 (skipped) where the machine cannot host the simulation: not root, no `ip netns`, no TUN.
# usage: two_hosts.sh SOURCE_DIR BIN_DIR
set -uo pipefail
source_dir=$1 bin_dir=$2
# shellcheck source=require_cluster.sh
source "$(dirname "${BASH_SOURCE[0]}")/require_cluster.sh"

prefix="cbt$$"  # own namespace names: a person's run with the default prefix is left alone
work=$(mktemp -d)
trap 'CB_CLUSTER_PREFIX=$prefix "$source_dir/scripts/cluster/down.sh" >/dev/null 2>&1; rm -rf "$work"' EXIT
status=0
CB_CLUSTER_PREFIX=$prefix timeout -k 10 150 "$source_dir/scripts/cluster/run.sh" --short --out "$work" \
  --bin-dir "$bin_dir" >"$work/run.log" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
  echo "FAIL: scripts/cluster/run.sh --short exited $status"
  tail -40 "$work/run.log"
  exit 1
fi
failed=0
for link in plain shaped; do
  for benchmark in all_reduce sendrecv; do
    report="$work/$link-$benchmark.json"
    "$bin_dir/check_report" "$report" --benchmark "$benchmark" --world-size 2 || failed=1
    "$bin_dir/report_hosts" "$report" --expect 2 || failed=1
  done
done
for side in a b; do
  [ -e "/run/netns/$prefix-host-$side" ] && { echo "FAIL: namespace $prefix-host-$side left behind"; failed=1; }
done
grep "tun_forwarder:" "$work/tun_forwarder.log"
[ "$failed" -eq 0 ] && echo "ok: two hosts over the plain and the shaped link"
exit "$failed"
