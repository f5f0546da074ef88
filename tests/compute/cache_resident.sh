#!/usr/bin/env bash
# copy_perf's host memcpy and membw_perf's STREAM rows say when their working set fits in the
# host's last-level cache (hwloc): cache_resident in the row, "cache" yes/no in the live table and
# in `collbench table`. Each row's mark must follow from its own bytes and the cache it names, a
# 4 KiB copy must be marked, and a copy of 256 MiB (512 MiB read and written) must not be, where
# the cache is smaller than that. GPUs are hidden: this is the host path.
# usage: cache_resident.sh BIN_DIR
set -uo pipefail
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

CUDA_VISIBLE_DEVICES= "$bin/copy_perf" -b 4K -e 256M -f 65536 -n 1 -w 0 -J "$work/copy.json" > "$work/copy.out" 2>&1 ||
  fail "copy_perf: $(tail -n 3 "$work/copy.out")"
cache=$(jq '.results[0].cache_bytes // 0' "$work/copy.json")
[ "$cache" -gt 0 ] || { echo "SKIP: hwloc reads no last-level cache here"; exit 77; }
# The rule, row by row: resident exactly when source and destination together fit.
bad=$(jq --argjson c "$cache" '[.results[] | select(.cache_resident != (2 * .bytes <= $c))] | length' "$work/copy.json")
[ "$bad" = 0 ] || fail "$bad copy row(s) whose cache_resident disagrees with 2 x bytes <= $cache"
[ "$(jq '.results[] | select(.bytes == 4096) | .cache_resident' "$work/copy.json")" = true ] || fail "the 4 KiB copy is not marked"
if [ "$cache" -lt $((512 << 20)) ]; then
  [ "$(jq '.results[] | select(.bytes == 268435456) | .cache_resident' "$work/copy.json")" = false ] ||
    fail "the 256 MiB copy is marked cache-resident under a cache of $cache bytes"
fi
# The live table and collbench table show the mark in the cache column.
grep -q ' cache' "$work/copy.out" || fail "the live table has no cache column: $(head -n 20 "$work/copy.out")"
grep -Eq '^ *host +host +cpu .* 4096 .* yes( |$)' "$work/copy.out" || fail "the 4 KiB live row shows no 'yes': $(cat "$work/copy.out")"
"$bin/collbench" table "$work/copy.json" > "$work/copy.table" 2>&1 || fail "collbench table: $(cat "$work/copy.table")"
grep -Eq ' 4096 .* yes( |$)' "$work/copy.table" || fail "collbench table shows no 'yes' for 4 KiB: $(cat "$work/copy.table")"

# membw_perf: STREAM's counted bytes are the pass's working set (copy: two arrays).
CUDA_VISIBLE_DEVICES= "$bin/membw_perf" --sizes 4K -k copy,triad -n 2 -w 0 --threads 1 -J "$work/membw.json" > "$work/membw.out" 2>&1 ||
  fail "membw_perf: $(tail -n 3 "$work/membw.out")"
bad=$(jq '[.results[] | select(.cache_resident != (.bytes_counted <= .cache_bytes))] | length' "$work/membw.json")
[ "$bad" = 0 ] || fail "$bad membw row(s) whose cache_resident disagrees with bytes_counted <= cache_bytes"
[ "$(jq '[.results[] | select(.cache_resident == true)] | length' "$work/membw.json")" = 2 ] || fail "4 KiB STREAM rows are not marked"
grep -q ' yes' "$work/membw.out" || fail "membw's live table shows no 'yes': $(cat "$work/membw.out")"
echo "ok: cache $cache bytes; copy and STREAM rows marked by their working set, in the rows and both tables"
