#!/usr/bin/env bash
# CTest cluster.groups_slow_host: concurrent groups on a star of 4 hosts x 2 ranks find the slow host
# and the slow link (issue 62), through scripts/groups/slow_host_link.sh on one size. Rank 6 (host d)
# slowed 11x: in --groups host the slowest group is host d's {6,7} (group 3), in --groups pairs
# the pair {2,6} (group 2). Host d's link at a quarter of the others' rate (250mbit against
# 1gbit): in --groups pairs the two slowest are the pairs through d, {2,6} and {3,7}. Asserted as
# the order of the groups' busbw at the largest size (read back with `collbench table --groups
# summary`), which the faults set by far (each near a quarter of the others'), not as the SLOW
# verdicts, whose margin the machine's load can cross: on 2 cores busy with other work one host's
# pair in --groups host, whose traffic never leaves a host, fell to 0.7x the median once
# (2026-12-07, load 11). The verdicts of quiet runs are in results/groups/. Exit 77 (skipped) where
# the machine cannot host the simulation.
# usage: groups_slow_host.sh SOURCE_DIR BIN_DIR
set -uo pipefail
source_dir=$1 bin_dir=$2
# shellcheck source=require_cluster.sh
source "$(dirname "${BASH_SOURCE[0]}")/require_cluster.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Its own exit says whether each run's verdict was the expected one; here only the order counts.
COLLBENCH_BIN=$bin_dir timeout -k 10 420 "$source_dir/scripts/groups/slow_host_link.sh" --out "$work" --slowdown 1000 -- -b 1M -e 1M -n 5 -w 1 -c 1
for run in slow_host.host:3 slow_host.pairs:2 slow_link.pairs:2,3 slow_link.host:; do
  name=${run%%:*} want=${run#*:}
  [ -s "$work/$name.json" ] || { tail -n 5 "$work/$name.err"; echo "FAIL: $name wrote no report"; exit 1; }
  "$bin_dir/collbench" table --groups summary --format json "$work/$name.json" >"$work/$name.summary" || { echo "FAIL: collbench table on $name"; exit 1; }
  [ -n "$want" ] || continue
  # The slowest groups by busbw at the largest size, as many as are wanted, in id order.
  got=$(python3 -c 'import json,sys
rows = [r for r in json.load(open(sys.argv[1]))["tables"][0]["rows"] if r["group"] != "all"]
slowest = sorted(rows, key=lambda r: r["busbw_gbps"])[:int(sys.argv[2])]
print(",".join(str(g) for g in sorted(r["group"] for r in slowest)))' "$work/$name.summary" "$(echo "$want" | tr , '\n' | wc -l)")
  [ "$got" = "$want" ] || { cat "$work/$name.summary"; echo "FAIL: $name: the slowest groups are '$got', want '$want'"; exit 1; }
  echo "ok: $name: the slowest groups are $got"
done
