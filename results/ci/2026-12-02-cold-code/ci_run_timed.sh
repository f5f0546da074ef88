#!/usr/bin/env bash
# usage: ci_run_timed.sh REPO COMMIT OUTDIR
# .ci/run on a fresh clone of REPO at COMMIT in OUTDIR/clone, no compiler cache, under /usr/bin/time -v;
# every output line prefixed with the seconds since the start (OUTDIR/log.txt, read by phases.sh and
# per_test.sh), the load average every 15 s (OUTDIR/load.txt), uptime before and after (OUTDIR/time.txt).
set -u
repo=$1; commit=$2; out=$3; mkdir -p "$out"
rm -rf "$out/clone"; git clone -q "$repo" "$out/clone"; cd "$out/clone" || exit 1; git checkout -q "$commit"
( while true; do echo "$(date +%s) $(cut -d' ' -f1-3 /proc/loadavg)"; sleep 15; done ) >"$out/load.txt" &
load_sampler=$!
{ date; uptime; } >"$out/time.txt"
start=$(date +%s)
CCACHE_DISABLE=1 /usr/bin/time -v .ci/run 2>&1 | while IFS= read -r l; do echo "$(( $(date +%s) - start )) $l"; done >"$out/log.txt"
echo "rc=${PIPESTATUS[0]}" >>"$out/time.txt"
{ date; uptime; } >>"$out/time.txt"
kill "$load_sampler"
