#!/usr/bin/env bash
# The main job: set-up, build, then the default suite on this machine: the nine collectives under
# mpirun with one rank per core (at least 2), a JSON report each under
# results/local/<timestamp>/, and a summary table at the end.
#
# Environment: NP (ranks), SUITE_ARGS (arguments for every *_perf; default a 8 B .. 16 MiB sweep),
# OUT (report folder).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
bin="${BUILD_DIR:-$root/build}/bin"

cores=$(nproc)
np="${NP:-$(( cores < 2 ? 2 : cores ))}"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
out="${OUT:-$root/results/local/$stamp}"
mkdir -p "$out"
read -r -a suite_args <<< "${SUITE_ARGS:--b 8 -e 16M -f 4 -n 20 -w 5 -c 1 -T 300}"

collectives=(all_reduce broadcast reduce all_gather reduce_scatter alltoall gather scatter sendrecv)
failures=0
for collective in "${collectives[@]}"; do
  echo "== ${collective}_perf on $np ranks"
  if ! "$root/scripts/mpirun-local.sh" -np "$np" "$bin/${collective}_perf" "${suite_args[@]}" \
        -J "$out/$collective.json" --tag suite=default | tee "$out/$collective.txt"; then
    echo "!! ${collective}_perf failed (report kept in $out/$collective.json)"
    failures=$((failures + 1))
  fi
done

echo
echo "Summary ($np ranks, reports in $out)"
printf '%-16s %-26s %s\n' benchmark "avg bus bandwidth" "correctness"
for collective in "${collectives[@]}"; do
  text="$out/$collective.txt"
  busbw=$(sed -n 's/^# Avg bus bandwidth *: //p' "$text" 2>/dev/null | head -1)
  checked=$(sed -n 's/^# Out of bounds values : //p' "$text" 2>/dev/null | head -1)
  printf '%-16s %-26s %s\n' "$collective" "${busbw:-failed}" "${checked:-failed}"
done
exit $(( failures > 0 ? 1 : 0 ))
