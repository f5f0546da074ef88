#!/usr/bin/env bash
# The summary maker (scripts/gpu-verify-summary.py) on the hand-made state folder in data/verify
# (nccl-tests tables in nccl-tests' own layout, collbench reports; see data/make_fixtures.py for
# the expected ratios): ratios per size, rows outside 0.98-1.02 marked, #wrong flagged, compute and
# copy figures against their references; and its bad-input exits.
# usage: summary.sh COLLBENCH_BIN
set -uo pipefail
collbench=$1
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
maker="$here/../../scripts/gpu-verify-summary.py"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
check() {  # check DESCRIPTION REGEX: the summary has a line matching REGEX (grep -E)
  if grep -Eq -- "$2" "$work/summary.md"; then echo "ok: $1"; else echo "FAIL: $1 (no line matching '$2')"; failures=$((failures + 1)); fi
}
absent() {
  if grep -Eq -- "$2" "$work/summary.md"; then echo "FAIL: $1 (a line matches '$2')"; failures=$((failures + 1)); else echo "ok: $1"; fi
}

python3 "$maker" "$here/data/verify" --collbench "$collbench" >"$work/summary.md" 2>"$work/stderr" ||
  { echo "FAIL: the summary maker exited $?"; cat "$work/stderr"; exit 1; }
check "the card named" '^# GPU verification: collbench on FIXTURE'
check "ncclGetVersion recorded" '^- nccl \(ncclGetVersion\): 22800$'
check "the code the programs were built from" '^- collbench: 0\.1\.0\+g0123456-dirty; commit 0123456789abcdef0123456789abcdef01234567, tree modified \(diff sha256 00112233aabbccdd\)$'
check "the preflight's NCCL from the pip wheel" '^- nccl: /fixture/nvidia/nccl/lib/libnccl\.so\.2 \(the pip wheel.s \(nvidia-nccl\)\), version 2\.28\.7 \(22807\)$'
check "the preflight's MPI: none" '^- mpi: none; one rank runs as a plain process'

check "the nccl-tests version line parsed" 'nccl-tests run: version 2.19.6, nccl-headers=22800, nccl-library=22800'
check "8 B: median of 1.00, 1.01, 0.99 and its range, not marked" '^\| 8 B \| 10.00 \| 10.00 \| 1.000 \(0.990–1.010, 3\) \| 10.00 \| 10.00 \| 1.000 \(0.990–1.010, 3\) \|  \|$'
check "1 KiB: 1.100, marked" '^\| 1 KiB \| 20.00 \| 22.00 \| 1.100 \(1.100–1.100, 3\) .*\| \*\*OUT\*\* \|$'
check "1 MiB: in place 0.950 marks the row" '^\| 1 MiB \| 100.00 \| 101.00 \| 1.010 .* \| 0.950 \(0.950–0.950, 3\) \| \*\*OUT\*\* \|$'
check "rows outside counted" '^Rows outside 0.98–1.02: 2\.$'
check "test phase: #wrong 0" '^\| all_reduce.json \| complete \| 2 \| 0 \|$'
check "test phase: #wrong 3 flagged" '^\| reduce.json \| complete \| 2 \| 3 \*\*CHECK\*\* \|$'
check "a failed step stands out" '^\| test \| reduce -d all \| \*\*WRONG\*\* \|'
check "bf16 GEMM against bare cuBLASLt" '^\| bfloat16 \| 8192x8192x8192 \| 1099.5 \| 1099.5 \| 1.000 \| 1 / 1 \|$'
check "d2d copy against the ceiling" '^\| d2d \| device \| driver \| 536.87 \| 1073.74 \| 0.500 \|$'
absent "no variant without data" 'collbench / nccl-tests: (graph|registered)'
check "run wall times: medians 3 and 8 s, the failed run left out" '^\| plain \| all_reduce \| 3.0 \(3\) \| 8.0 \(3\) \| 2.7 \|$'
check "the failed run counted" 'Failed runs left out: 1\.$'
check "NCCL's own estimate beside the measured time" '^\| 1 KiB \| out \| RING/LL \| 10.00 \| 12.00 \| 1.200 \|$'
check "a row without an estimate says so" '^\| 1 KiB \| in \| RING/LL \| 10.00 \| – \| – \|$'

# At one rank the in-place ratio (0.950 at 1 MiB) is shown, not marked: NCCL has no work there.
cp -r "$here/data/verify" "$work/one_rank"
for report in "$work"/one_rank/collectives/plain/r*/collbench-all_reduce.json; do
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["context"]["world_size"] = 1; json.dump(d, open(sys.argv[1], "w"))' "$report"
done
python3 "$maker" "$work/one_rank" --collbench "$collbench" >"$work/summary.md" 2>&1
check "one rank: the in-place 0.950 is not marked" '^\| 1 MiB \| 100.00 \| 101.00 \| 1.010 .* \| 0.950 \(0.950–0.950, 3\) \|  \|$'
check "one rank: only 1 KiB outside, and why in place is not counted" '^Rows outside 0.98–1.02: 1\. At one rank NCCL skips an in-place copy'

# A narrower band (--low/--high) marks the 8 B row too.
python3 "$maker" "$here/data/verify" --collbench "$collbench" --low 1.005 --high 1.2 >"$work/summary.md" 2>&1
check "--low 1.005 marks 8 B (1.000)" '^\| 8 B \| .*\*\*OUT\*\* \|$'
check "--high 1.2 leaves 1 KiB unmarked" '^\| 1 KiB \| .*\|  \|$'

# Bad input: one line, exit 2.
bad() {
  python3 "$maker" "$@" >/dev/null 2>"$work/stderr"
  local code=$? lines
  lines=$(wc -l < "$work/stderr")
  if [ "$code" -eq 2 ] && [ "$lines" -eq 1 ] && grep -q "^gpu-verify-summary.py: error: " "$work/stderr"; then echo "ok: $* -> $(cat "$work/stderr")"
  else echo "FAIL: $* -> exit $code, $lines lines (want 2, 1)"; cat "$work/stderr"; failures=$((failures + 1)); fi
}
bad
bad "$work/nowhere"
bad "$here/data"
bad "$here/data/verify" --low abc
bad "$here/data/verify" --bogus
mkdir -p "$work/broken/collectives/plain/r1" && echo "build	collbench	ok	1	" > "$work/broken/steps.tsv"
cp "$here/data/verify/collectives/plain/r1/nccl-tests-all_reduce.txt" "$work/broken/collectives/plain/r1/"
echo '{"not": "a report"}' > "$work/broken/collectives/plain/r1/collbench-all_reduce.json"
# A report collbench cannot read is listed, and the rest of the summary still comes.
python3 "$maker" "$work/broken" --collbench "$collbench" >"$work/summary.md" 2>&1 || { echo "FAIL: exit $? on a broken report"; failures=$((failures + 1)); }
check "an unreadable report is named with collbench's reason" '^- collectives/plain/r1/collbench-all_reduce.json: collbench: error: .*schema_version: missing$'
check "the steps still come" '^\| build \| collbench \| ok \|'
[ "$failures" -eq 0 ] || { echo "$failures check(s) failed"; exit 1; }
echo "all checks ok"
