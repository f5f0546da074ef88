#!/usr/bin/env bash
# Removes a simulated cluster left behind (for example after kill -9 of run.sh): the processes in
# its namespaces, its devices and the namespaces. CB_CLUSTER_PREFIX picks which (default cb).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/cluster/lib.sh
. "$here/lib.sh"
[ "$(id -u)" -eq 0 ] || { echo "down.sh: needs root" >&2; exit 2; }
cluster_down
cluster_names
for ns in "$NS_A" "$NS_B"; do
  if [ -e "/run/netns/$ns" ]; then echo "down.sh: $ns is still there" >&2; exit 1; fi
done
echo "down.sh: no namespaces named $NS_A or $NS_B remain"
