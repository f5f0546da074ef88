#!/usr/bin/env bash
# CTest cluster.slow_link: the link matrix finds the one slow host. A star of four hosts (one rank
# each) whose shaped links all add 0.2 ms host to host, except host d's, whose forwarder holds packets 4 ms
# each way; at both sizes the six ordered links touching rank 3 (host d) must be the slowest, and
# only they may be flagged (naming both hosts), exit 3 when any is. Exit 77 (skipped) where the machine cannot host
# the simulation (not root, no `ip netns`, no TUN). 4 ms, not more: half the 12 links are slow, so a
# slow one is 2s/(s+f) of the median, 1.88x at 4 ms (4.2 ms against 0.26 ms a message) where the
# verdict needs 1.5x; 10 ms gave 1.95x and took 12 s instead of 7.7 s (2026-12-03, run alone).
# usage: slow_link.sh SOURCE_DIR BIN_DIR
set -uo pipefail
source_dir=$1 bin_dir=$2
# shellcheck source=require_cluster.sh
source "$(dirname "${BASH_SOURCE[0]}")/require_cluster.sh"

export CB_CLUSTER_PREFIX="cbs$$"  # own namespace names: a person's run with the default prefix is left alone
MTU=9000
work=$(mktemp -d)
trap 'star_down >/dev/null 2>&1; rm -rf "$work"' EXIT
star_up 4 >"$work/up.log" 2>&1 || { cat "$work/up.log"; echo "FAIL: star_up"; exit 1; }
star_shape 1gbit 0.2 0 "$bin_dir/tun_forwarder" "$work" >>"$work/up.log" 2>&1 || { cat "$work/up.log"; echo "FAIL: star_shape"; exit 1; }
star_slow_host 3 4 0 "$bin_dir/tun_forwarder" "$work" >>"$work/up.log" 2>&1 || { cat "$work/up.log"; echo "FAIL: star_slow_host"; exit 1; }

report="$work/matrix.json"
status=0
# shellcheck disable=SC2016  # expanded by the inner bash
timeout -k 10 150 bash -c '. "$1/scripts/cluster/lib.sh"; star_names 4; shift; star_mpirun "$@"' slow_link "$source_dir" \
  4 1 shaped "$work" -- "$bin_dir/pt2pt_perf" --matrix --sizes 8,64K -n 5 -w 1 -c 1 -T 60 -J "$report" >"$work/run.log" 2>&1 || status=$?
cat "$work/run.log"
# 3 when a link is flagged, 0 when none is (the verdict's margin can be gone under load, see below).
case $status in 3) flags=some ;; 0) flags=none ;; *) echo "FAIL: pt2pt_perf --matrix exited $status, want 3 or 0"; exit 1 ;; esac
# At each size the six slowest links are those touching rank 3 (host d), only those are flagged
# (each naming both hosts), the flags follow the verdict's rule and the exit code the flags; four
# distinct hosts. Not "exactly those six flagged": that rests
# on the verdict's margin (1.88x against the median where 1.5x is needed), which one fast link
# slowed by a busy machine takes away, half the links being slow (issue 64: 2 of 6 flagged once
# beside CI). Slow against fast is 4.2 ms against 0.26 ms a message, a margin load does not cross.
"$bin_dir/check_pt2pt_report" "$report" --world-size 4 --mode latency --matrix --rows 24 --wrong zero --slow "$flags" \
  --expect-slowest 0-3,1-3,2-3,3-0,3-1,3-2 --hosts 4 || exit 1
echo "ok: the six slowest links are the slow host's, and only they are flagged ($flags flagged, exit $status)"
