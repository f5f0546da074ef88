#!/usr/bin/env bash
# CPU seconds (user + sys of ctest, the test and its children) of each named test, one ctest run
# each, with the load average before it: on a shared machine CPU seconds are comparable, wall
# seconds are not. Environment as scripts/test.sh sets it unless the caller did.
# usage: cpu_per_test.sh BUILD_DIR TEST_NAME...   (prints: name wall user sys cpu load1 result)
set -uo pipefail
build=$1; shift
cd "$build"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export OMPI_MCA_pml="${OMPI_MCA_pml:-ob1}" OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}"
for name in "$@"; do
  load=$(cut -d' ' -f1 /proc/loadavg)
  /usr/bin/time -o "$scratch/time" -f '%e %U %S' ctest -R "^${name//./\\.}\$" >"$scratch/log" 2>&1
  result=$(grep -Eo 'tests passed|[0-9]+ tests failed' "$scratch/log" | head -1)
  read -r wall user sys <"$scratch/time"
  printf '%s %s %s %s %.2f %s %s\n' "$name" "$wall" "$user" "$sys" "$(echo "$user + $sys" | bc)" "$load" "${result// /_}"
done
