#!/usr/bin/env bash
# Issue 48: every file collbench reads goes through one bounded reader (src/core/input_file.h).
# An endless or enormous input (/dev/zero, a runaway pipe) ends with exit 2 and one line naming the
# cap, never std::bad_alloc, under a 4 GiB address-space limit; a pipe (<(...)) reads like a file.
# The programs run as singletons (no mpirun, which does not pass a process substitution's
# descriptor on to its ranks).
# usage: bounded_inputs.sh BIN_DIR
set -uo pipefail
bin_dir=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
ln -s /dev/zero "$work/endless.csv"
ln -s /dev/zero "$work/endless.json"
printf 'layer,forward_us,backward_us\nlinear,10,20\n' > "$work/profile.csv"
# reports and a folder whose fingerprint never ends, for compare
"$bin_dir/all_reduce_perf" -b 8 -e 8 -n 1 -w 0 -J "$work/report.json" > /dev/null 2>&1 || { echo "FAIL: no report to read"; exit 1; }
mkdir -p "$work/base" "$work/new"
cp "$work/report.json" "$work/base/" && cp "$work/report.json" "$work/new/"
ln -s /dev/zero "$work/base/fingerprint.txt"

# refused PATTERN PROGRAM ARGS...: exit 2, exactly one stderr line, matching PATTERN.
refused() {
  local pattern=$1
  shift
  (ulimit -v 4194304; timeout 120 "$@" > "$work/stdout" 2> "$work/stderr")
  local code=$? lines
  lines=$(wc -l < "$work/stderr")
  if [ "$code" -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -q -- "$pattern" "$work/stderr"; then
    echo "FAIL: ${*#$bin_dir/} -> exit $code, $lines stderr line(s) (want 2, one line matching '$pattern')"
    head -c 2000 "$work/stderr"
    failures=$((failures + 1))
  else
    echo "ok: ${*#$bin_dir/} -> $(cat "$work/stderr")"
  fi
}
# reads PROGRAM ARGS...: exit 0.
reads() {
  (timeout 120 "$@" > "$work/stdout" 2> "$work/stderr")
  local code=$?
  if [ "$code" -ne 0 ]; then
    echo "FAIL: ${*#$bin_dir/} -> exit $code (want 0)"
    head -c 2000 "$work/stderr"
    failures=$((failures + 1))
  else
    echo "ok: ${*#$bin_dir/} -> exit 0"
  fi
}

# Endless inputs: a line longer than its cap, or more bytes than the file's cap.
refused "compute profile '/dev/zero': line 1 is longer than the 64 KiB cap" "$bin_dir/ddp_step_perf" --compute-profile /dev/zero
refused "compute profile .* is larger than the 16 MiB cap" "$bin_dir/ddp_step_perf" --compute-profile <(yes '# a comment')
refused "model file .*endless.csv': line 1 is longer than the 64 KiB cap" "$bin_dir/ddp_step_perf" --model "$work/endless.csv"
refused "model file .*endless.json' is larger than the 64 MiB cap" "$bin_dir/ddp_step_perf" --model "$work/endless.json"
refused "matrix file '/dev/zero': line 1 is longer than the 16 MiB cap" "$bin_dir/alltoallv_perf" --matrix /dev/zero
refused "matrix file .* is larger than the 256 MiB cap" "$bin_dir/alltoallv_perf" --matrix <(yes '0 # a comment')
refused "report .*endless.json' is larger than the 256 MiB cap" "$bin_dir/collbench" table "$work/endless.json"
refused "model file .*endless.json' is larger than the 64 MiB cap" "$bin_dir/collbench" model predict "$work/endless.json" --np 2
refused "fingerprint file .*: line 1 is longer than the 64 KiB cap" "$bin_dir/collbench" compare "$work/base" "$work/new"
# Pipes read once, like files.
reads "$bin_dir/ddp_step_perf" --compute-profile <(cat "$work/profile.csv") -n 1 -w 0
reads "$bin_dir/alltoallv_perf" --matrix <(echo 64) -n 1 -w 0
reads "$bin_dir/collbench" table <(cat "$work/report.json")
[ "$failures" -eq 0 ] || { echo "$failures case(s) failed"; exit 1; }
echo "all cases ok"
