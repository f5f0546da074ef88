#!/usr/bin/env bash
# ctest at each -j given, in turn (here -j 4, scripts/test.sh's setting then, and -j 8), in one build folder, cost data removed each time.
set -u
build=$1; out=$2; shift 2
mkdir -p "$out"
export OMPI_MCA_pml=ob1
( while true; do echo "$(date -u +%H:%M:%S) $(cut -d' ' -f1-3 /proc/loadavg)"; sleep 30; done ) > "$out/load.txt" &
sampler=$!
trap 'kill $sampler' EXIT
i=0
for j in "$@"; do
  i=$((i+1))
  rm -f "$build/Testing/Temporary/CTestCostData.txt"
  echo "## run $i -j $j start $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/time.txt"
  ( cd "$build" && /usr/bin/time -f "wall %e user %U sys %S" ctest --output-on-failure -j "$j" ) > "$out/ctest-$i-j$j.log" 2> "$out/time-$i-j$j.txt"
  echo "rc $? end $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg) $(cat "$out/time-$i-j$j.txt" | tail -1)" >> "$out/time.txt"
  grep -E "tests passed|Total Test time" "$out/ctest-$i-j$j.log" >> "$out/time.txt"
  sed -nE 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) \.+.* ([0-9.]+) sec$/\2 \1/p' "$out/ctest-$i-j$j.log" > "$out/seconds-$i-j$j.txt"
done
