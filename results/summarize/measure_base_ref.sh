#!/usr/bin/env bash
# The paired flow on one real change, end to end (issue 65, item 4): a clone of this repository at
# REF (default HEAD), a commit on top that makes the MPI backend's out-of-place all_reduce clear its
# receive buffer before each call (one more pass over 64-256 KiB: a real slowdown of a few percent,
# which no flag injects), then `scripts/ci-perf.sh --base-ref HEAD~1` in the clone, as a CI job runs
# it: REF built once into the clone's .cache/ci-perf, the change built into its build/, both run
# interleaved. Then the same against HEAD (A/A: the cached build of the change itself). Usage:
#   results/summarize/measure_base_ref.sh WORK_DIR [REF]
# Writes WORK/results.md (exit codes, verdicts, each step's seconds, load) and keeps the clone, its
# builds and the ab folders. Builds the suite three times (the change, the base, and the change again
# in the cache for the A/A check; CMAKE_ARGS reaches each, so ccache helps): allow 30-45 minutes on a
# 2-core VM, of which 5-15 are runs.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="$1"; ref="${2:-HEAD}"
mkdir -p "$work"
work="$(cd "$work" && pwd)"
repo="$work/repo"
rm -rf "$repo"
( while true; do echo "$(date -u +%H:%M:%S) $(cut -d' ' -f1-3 /proc/loadavg)"; sleep 30; done ) > "$work/load.txt" &
sampler=$!
trap 'kill $sampler' EXIT
step_seconds() { echo $(( $(date +%s) - $1 )); }

git clone -q "$root" "$repo" && git -C "$repo" checkout -q "$(git -C "$root" rev-parse "$ref")" ||
  { echo "measure_base_ref: cannot clone $root at $ref" >&2; exit 2; }
git -C "$repo" config user.email measure@example.com && git -C "$repo" config user.name measure_base_ref
# The change: out of place, all_reduce clears its receive buffer first (the result overwrites it).
file="$repo/src/backends/mpi/mpi_backend.cpp"
perl -0pi -e 's/(void MpiBackend::all_reduce\(const CollectiveCall& call\) \{\n)/$1  if (!call.in_place) std::memset(call.recv, 0, call.count * dtype_info(call.dtype).size_bytes);  \/\/ measure_base_ref.sh\x27s change\n/' "$file"
grep -q "measure_base_ref.sh's change" "$file" || { echo "measure_base_ref: the change did not apply to $file" >&2; exit 2; }
grep -q '#include <cstring>' "$file" || sed -i '0,/#include <cstdlib>/s//#include <cstdlib>\n#include <cstring>/' "$file"
git -C "$repo" commit -qam "all_reduce clears its receive buffer first (measure_base_ref.sh)"

started=$(date +%s)
BUILD_DIR="$repo/build" "$repo/scripts/build.sh" --suite > "$work/build-change.log" 2>&1 ||
  { echo "measure_base_ref: building the change failed; see $work/build-change.log" >&2; exit 1; }
build_change_s=$(step_seconds "$started")

run_check() {  # run_check NAME REF: the paired check in the clone, its output and seconds kept
  local start code
  start=$(date +%s)
  rm -rf "$work/$1"
  BUILD_DIR="$repo/build" OUT="$work/$1" bash "$repo/scripts/ci-perf.sh" --base-ref "$2" > "$work/$1.md" 2> "$work/$1.log"
  code=$?
  echo "$code $(step_seconds "$start")"
}
read -r change_code change_s < <(run_check change HEAD~1)
read -r again_code again_s < <(run_check change-again HEAD~1)
read -r aa_code aa_s < <(run_check aa HEAD)
kill $sampler
trap - EXIT

verdicts() { grep -h '^verdict:' "$work/$1.md" | sed 's/^/  - /'; }
load_range=$(awk '{ if (min == "" || $2 < min) min = $2; if ($2 > max) max = $2 } END { printf "%s-%s", min, max }' "$work/load.txt")
{
  echo "# ci-perf.sh --base-ref on a real change, $(date -u +%Y-%m-%d) ($(nproc) cores, load average $load_range)"
  echo
  echo "Base: $(git -C "$repo" rev-parse --short HEAD~1) ($ref); the change: $(git -C "$repo" log -1 --format='%h %s')."
  echo "Building the change (scripts/build.sh --suite): ${build_change_s} s."
  echo
  echo "| check | exit | seconds (base build included) | built the base? |"
  echo "|---|---|---|---|"
  for check in "change HEAD~1 $change_code $change_s" "change-again HEAD~1 $again_code $again_s" "aa HEAD $aa_code $aa_s"; do
    read -r name against code seconds <<< "$check"
    built=no; grep -q "building" "$work/$name.log" && built=yes
    echo "| --base-ref $against ($name) | $code | $seconds | $built |"
  done
  echo
  for name in change change-again aa; do echo "- $name:"; verdicts "$name"; done
} > "$work/results.md"
cat "$work/results.md"
