#!/usr/bin/env bash
# The main job: set-up, build, then the default suite on this machine: the nine collectives under
# mpirun, a JSON report each under results/local/<timestamp>/, a summary table at the end, and
# beside the reports busbw-<collective>.png, time-<collective>.png and summary.md.
# With GPUs visible (and NCCL built) one rank per GPU through NCCL, nccl-tests' model; otherwise
# one rank per core (at least 2) through MPI on host memory.
#
# Environment: NP (ranks), SUITE_ARGS (arguments for every *_perf; default a 8 B .. 16 MiB sweep),
# OUT (report folder).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
bin="${BUILD_DIR:-$root/build}/bin"

cores=$(nproc)
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [ "${gpus:-0}" -gt 0 ] && "$bin/all_reduce_perf" --version | grep -q "nccl"; then
  np="${NP:-$gpus}"   # two ranks on one GPU is an error in NCCL: one rank per GPU
else
  np="${NP:-$(( cores < 2 ? 2 : cores ))}"
fi
stamp=$(date -u +%Y%m%dT%H%M%SZ)
out="${OUT:-$root/results/local/$stamp}"
mkdir -p "$out"
read -r -a suite_args <<< "${SUITE_ARGS:--b 8 -e 16M -f 4 -n 20 -w 5 -c 1 -T 300}"

mapfile -t collectives < "$bin/collectives.txt"  # written by CMake from the workloads it built
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
# One line per report from `collbench table --summary` (avg/peak bus bandwidth, #wrong, status).
reports=()
for collective in "${collectives[@]}"; do
  if [ -s "$out/$collective.json" ]; then reports+=("$out/$collective.json"); else echo "$collective: failed, no report"; fi
done
if [ ${#reports[@]} -gt 0 ]; then
  "$bin/collbench" table --summary yes "${reports[@]}" || echo "(collbench could not summarize the reports)"
  # Beside the reports: one bus-bandwidth and one time plot per collective (PNG), and summary.md,
  # the same summary in Markdown with the plots inline.
  images=()
  for metric in busbw time; do
    if "$bin/collbench" plot "${reports[@]}" --metric "$metric" --out "$out/$metric.png" --format json > "$out/plot-$metric.json"; then
      while IFS= read -r image; do images+=("$image"); done < <(python3 -c \
        'import json,sys; print("\n".join(json.load(open(sys.argv[1])).get("images", [])))' "$out/plot-$metric.json")
    else
      echo "(no $metric plots: see above)"
    fi
    rm -f "$out/plot-$metric.json"
  done
  {
    echo "# collbench suite, $np ranks, $stamp"
    echo
    echo "Reports in \`$out\`; arguments: \`${suite_args[*]}\`; $failures failed."
    echo
    "$bin/collbench" table --summary yes "${reports[@]}" --format markdown || echo "(collbench could not summarize the reports)"
    echo
    for image in "${images[@]}"; do echo "![$(basename "$image" .png)]($(basename "$image"))"; echo; done
  } > "$out/summary.md"
  echo "plots and summary.md in $out"
fi
exit $(( failures > 0 ? 1 : 0 ))
