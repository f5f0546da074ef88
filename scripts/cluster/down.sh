#!/usr/bin/env bash
# Removes a simulated cluster left behind (for example after kill -9 of run.sh): the processes in
# its namespaces, its devices and the namespaces: the two-host cluster and the star of up to four.
# CB_CLUSTER_PREFIX picks which (default cb). Only namespaces that scripts/cluster made (marked in
# /run/collbench-netns) are touched: another one of the same name is named in one line, exit 2.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/cluster/lib.sh
. "$here/lib.sh"
[ "$(id -u)" -eq 0 ] || { echo "down.sh: needs root" >&2; exit 2; }
cluster_down
star_down
cluster_names
star_names 4
for ns in "$NS_A" "$NS_B" "${STAR_HOSTS[@]}" "$STAR_SWITCH"; do
  [ -e "/run/netns/$ns" ] || continue
  # Another's namespace that the prefix happens to name: left alone above, said once, exit 2.
  [ -f "$CLUSTER_MARKS/$ns" ] || exit 2
  echo "down.sh: $ns is still there" >&2
  exit 1
done
echo "down.sh: no namespaces named ${STAR_HOSTS[*]} or $STAR_SWITCH remain"
