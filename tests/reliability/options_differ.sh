#!/usr/bin/env bash
# Two ranks started through mpirun's MPMD syntax with the given command lines. Different options
# must end both ranks with exit 2 and one line naming rank 1; the same options spelled differently
# must run normally. usage: options_differ.sh BIN_DIR differ|agree "RANK0 COMMAND" "RANK1 COMMAND"
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../mpi/finalized_exit.sh"
bin_dir=$1 expect=$2
shift
read -r -a first <<<"$2"
read -r -a second <<<"$3"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
timeout 60 "$here/../../scripts/mpirun-local.sh" -np 1 "$bin_dir/${first[0]}" "${first[@]:1}" : \
  -np 1 "$bin_dir/${second[0]}" "${second[@]:1}" >"$work/stdout" 2>"$work/stderr"
status=$?
if [ "$expect" = agree ]; then
  [ "$status" -eq 0 ] || { echo "FAIL: same options spelled differently: exit $status"; cat "$work/stderr"; exit 1; }
  echo "ok: '$2' and '$3' agree"
  exit 0
fi
lines=$(grep -c "error: ranks were started with different options" "$work/stderr")
if [ "$status" -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -q "rank 1 ran '${second[0]}" "$work/stderr"; then
  echo "FAIL: '$2' : '$3': exit $status (want 2), $lines agreement lines (want 1 naming rank 1)"
  cat "$work/stderr"
  exit 1
fi
echo "ok: $(grep "different options" "$work/stderr")"
