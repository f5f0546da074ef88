#!/usr/bin/env bash
# The main job: set-up, build, then the default suite on this machine: the nine collectives under
# mpirun, a JSON report each under results/local/<timestamp>/, a summary table with a health line per
# collective at the end, and beside the reports overview.png (every collective's bus bandwidth),
# busbw-<collective>.png, time-<collective>.png and summary.md (machine, overview, health, plots).
# With GPUs visible (and NCCL built) one rank per GPU through NCCL, nccl-tests' model; otherwise
# one rank per core (at least 2) through MPI on host memory.
#
# Environment: NP (ranks), SUITE_ARGS (arguments for every *_perf; default a 8 B .. 16 MiB sweep),
# OUT (report folder).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
program=run-suite.sh
source "$root/scripts/check-variables.sh"
[ -z "${NP:-}" ] || require_whole_number NP "$NP" 1
[ -z "${BUILD_DIR:-}" ] || require_folder_or_absent BUILD_DIR "$BUILD_DIR"
[ -z "${OUT:-}" ] || require_folder_or_absent OUT "$OUT"
"$root/scripts/setup.sh" --suite
# Only what this job runs: the collective programs and collbench (CUDA only with a GPU visible);
# scripts/test.sh later builds the rest into the same folder.
"$root/scripts/build.sh" --suite
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

# nccl-tests' nine collectives, as CMake listed the ones it built (collectives.txt). alltoallv is
# left to a run by hand: its rows (uneven traffic) are a kind of their own, which the summary
# table and plots of this suite cannot put beside the others.
mapfile -t collectives < <(grep -vx alltoallv "$bin/collectives.txt")
failures=0
for collective in "${collectives[@]}"; do
  echo "== ${collective}_perf on $np ranks"
  if ! "$root/scripts/mpirun-local.sh" -np "$np" "$bin/${collective}_perf" "${suite_args[@]}" \
        -J "$out/$collective.json" --tag suite=default | tee "$out/$collective.txt"; then
    echo "!! ${collective}_perf failed (report kept in $out/$collective.json)"
    failures=$((failures + 1))
  fi
done

# The memory ceiling the summary judges a run on CPUs by (collbench explain): one rank's STREAM copy
# past the caches, in its own folder so that the collectives' reports stay one kind.
ceilings=()
if [ "${gpus:-0}" -eq 0 ] && mkdir -p "$out/ceilings" &&
   "$bin/membw_perf" -b 256M -e 256M -k copy -n 10 -w 2 -J "$out/ceilings/membw.json" > "$out/ceilings/membw.txt"; then
  ceilings=(--ceilings "$out/ceilings/membw.json")
fi

echo
echo "Summary ($np ranks, reports in $out)"
# One line per report from `collbench table --summary` (avg/peak bus bandwidth, #wrong, status).
reports=()
for collective in "${collectives[@]}"; do
  if [ -s "$out/$collective.json" ]; then reports+=("$out/$collective.json"); else echo "$collective: failed, no report"; fi
done
if [ ${#reports[@]} -gt 0 ]; then
  "$bin/collbench" table --summary yes "${reports[@]}" "${ceilings[@]}" || echo "(collbench could not summarize the reports)"
  echo "why: $bin/collbench explain $out"
  # Beside the reports: one bus-bandwidth and one time plot per collective (PNG), and summary.md,
  # the same summary in Markdown with the plots inline.
  "$bin/collbench" plot "${reports[@]}" --overview --out "$out/overview.png" > /dev/null || echo "(no overview plot: see above)"
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
  cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//')
  memory=$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo 2>/dev/null)
  mpi=$(mpirun --version 2>/dev/null | head -1)
  {
    echo "# collbench suite, $np ranks, $stamp"
    echo
    echo "Machine: $(hostname), ${cpu:-CPU model unknown}, $cores cores, ${memory:-memory unknown}; ${mpi:-no mpirun}."
    echo "Reports in \`$out\`; arguments: \`${suite_args[*]}\`; $failures failed."
    echo
    [ -s "$out/overview.png" ] && { echo "![every collective's bus bandwidth](overview.png)"; echo; }
    echo "## Health"
    echo
    echo "Per collective: peak bus bandwidth and where, rows checked and wrong, and a health verdict. \`check:\`"
    echo "marks what to look at (wrong elements, a partial report, one size far slower than its neighbours, a"
    echo "rank far slower than the others, bandwidth falling where no cache explains it, busbw below 70 % of"
    echo "what a link should give); a fall past a CPU cache, and busbw below the host-memory bound on CPUs,"
    echo "are said as notes. \`of_expected\`:"
    echo "busbw at the largest sizes as a fraction of the expected figure (\`collbench explain $out\` says"
    echo "which figure, from where, and why; docs/summarizer.md)."
    echo
    "$bin/collbench" table --summary yes "${reports[@]}" "${ceilings[@]}" --format markdown || echo "(collbench could not summarize the reports)"
    echo
    echo "## Per collective"
    echo
    echo "| collective | bus bandwidth | time |"
    echo "|---|---|---|"
    for collective in "${collectives[@]}"; do
      busbw="" time=""
      for image in "${images[@]}"; do
        case "$(basename "$image")" in
          "busbw-$collective.png") busbw="![busbw]($(basename "$image"))" ;;
          "time-$collective.png") time="![time]($(basename "$image"))" ;;
        esac
      done
      [ -n "$busbw$time" ] && echo "| $collective | $busbw | $time |"
    done
  } > "$out/summary.md"
  # The terminal gets the health lines too: the same summary table as above, with its verdicts.
  echo "plots and summary.md in $out"
fi
exit $(( failures > 0 ? 1 : 0 ))
