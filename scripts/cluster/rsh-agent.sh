#!/usr/bin/env bash
# Open MPI's rsh agent for the simulated cluster (mpirun --mca plm_rsh_agent THIS). Open MPI calls
# it as ssh: "AGENT HOST WORD...", the words forming one remote shell command (orted and its
# arguments). Instead of ssh, this enters HOST's network namespace and a fresh UTS namespace whose
# hostname is the namespace's name, so orted and its ranks report that host.
# CB_CLUSTER_HOSTS maps addresses to namespaces: "10.213.0.1=cb-host-a 10.213.0.2=cb-host-b".
set -euo pipefail
[ $# -ge 2 ] || { echo "rsh-agent: usage: rsh-agent.sh HOST COMMAND..." >&2; exit 255; }
host=$1
shift
namespace=
for entry in ${CB_CLUSTER_HOSTS:-}; do
  if [ "${entry%%=*}" = "$host" ]; then namespace=${entry#*=}; fi
done
if [ -z "$namespace" ]; then
  echo "rsh-agent: $host is not a host of the simulated cluster (CB_CLUSTER_HOSTS='${CB_CLUSTER_HOSTS:-}')" >&2
  exit 255  # what ssh returns when it cannot reach a host
fi
# shellcheck disable=SC2016  # expanded by the inner sh
# "$*" joins the words with spaces, as ssh does before handing them to the remote shell.
exec ip netns exec "$namespace" unshare --uts -- sh -c 'hostname "$1" && exec sh -c "$2"' rsh-agent "$namespace" "$*"
