#!/usr/bin/env bash
# The README's two commands in order on a fresh clone, each under /usr/bin/time, with the load
# average every 30 s, the state probe (a 2-rank report's context.state_probe) before and after the
# test command, and every test's seconds from ctest's log. COMMANDS=scripts/test.sh: the test
# command alone, on a clone with no build. Run it with nothing else on the machine.
# usage: readme_two.sh REPO COMMIT OUT
set -u
[ $# -eq 3 ] || { echo "usage: readme_two.sh REPO COMMIT OUT" >&2; exit 2; }
repo=$1 commit=$2 out=$(realpath -m "$3")
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$out"; scratch=$(mktemp -d -t readme2.XXXX)
trap 'rm -rf "$scratch"' EXIT
git clone -q "$repo" "$scratch/repo" && git -C "$scratch/repo" checkout -q "$commit" && cd "$scratch/repo" ||
  { echo "readme_two.sh: cannot check out $commit of $repo" >&2; exit 2; }
( while true; do echo "$(date -u +%H:%M:%S) $(cut -d' ' -f1-3 /proc/loadavg)"; sleep 30; done ) > "$out/load.txt" &
sampler=$!
trap 'kill $sampler; rm -rf "$scratch"' EXIT
probe() {  # the state probe: a cache line's round trip between the two CPUs (median ns), via a tiny report
  OMPI_MCA_pml=ob1 "$scratch/repo/scripts/mpirun-local.sh" -np 2 "$scratch/repo/build/bin/all_reduce_perf" -b 8 -e 8 -n 10 -J "$scratch/p.json" --overwrite >/dev/null 2>&1 \
    && jq -r '"state probe: before \(.context.state_probe.before_ns) ns, after \(.context.state_probe.after_ns) ns"' "$scratch/p.json" || echo "state probe: none"
}
{
  echo "# The README's two commands in order on a fresh clone of $(git rev-parse --short HEAD) (packages already installed; no compiler cache), nothing else running, each under /usr/bin/time"
  for cmd in ${COMMANDS:-scripts/run-suite.sh scripts/test.sh}; do
    echo "## $cmd: $(date -u +%H:%M:%S) $(uptime)"
    [ "$cmd" = scripts/test.sh ] && [ -d build/bin ] && probe
    /usr/bin/time -f "$cmd: %e s wall, %U s user, %S s sys" -o "$out/time-$(basename "$cmd" .sh).txt" "$cmd" > "$out/$(basename "$cmd" .sh).log" 2>&1
    echo "rc=$?"; cat "$out/time-$(basename "$cmd" .sh).txt"
    probe
  done
  echo "## end: $(date -u +%H:%M:%S) $(uptime)"
  grep -E "tests passed|Total Test time" "$out/test.log"
} > "$out/time.txt" 2>&1
"$here/../2026-12-02-cold-code/per_test.sh" "$out/test.log" "$out"  # every test's seconds: ctest-seconds-per-test.txt
