#!/usr/bin/env bash
# Integration of collbench with the real *_perf executables under real mpirun.
# Usage: sweeps.sh SCENARIO BIN_DIR   (scenarios: scaling algorithms compare_aa inject_slowdown ab resume table_formats hostile interrupt resume_other env_names tune_mpi tune_gloo)
set -u
scenario="$1"
bin="$2"
work=$(mktemp -d)
trap "rm -rf \"$work\"" EXIT
fail() { echo "FAIL ($scenario): $*" >&2; exit 1; }
quick=(-n 3 -w 1 -c 1 -T 120)

case "$scenario" in
  scaling)
    "$bin/collbench" sweep --np 1,2,4 --out "$work/s" -- "$bin/all_reduce_perf" -b 8 -e 4K -f 8 "${quick[@]}" \
      || fail "sweep exited $?"
    for np in 1 2 4; do
      "$bin/check_report" "$work/s/np$np.r1.json" --benchmark all_reduce --world-size $np >/dev/null || fail "report np$np"
    done
    [ -s "$work/s/scaling.md" ] || fail "no scaling.md"
    grep -q '| 4096 | 4 |' "$work/s/scaling.md" || fail "scaling.md lacks 4096 B at 4 ranks"
    [ -s "$work/s/time.dat" ] && [ -s "$work/s/time.gp" ] || fail "no plot data or script"
    csv=$("$bin/collbench" scaling "$work/s" --format csv) || fail "scaling csv"
    echo "$csv" | head -1 | grep -q 'benchmark.*bytes,world_size,time_us,busbw_gbps,speedup,efficiency' || fail "csv header: $(echo "$csv" | head -1)"
    # 4 sizes x 2 placements x 3 world sizes + header
    [ "$(echo "$csv" | wc -l)" -eq 25 ] || fail "csv has $(echo "$csv" | wc -l) lines"
    "$bin/collbench" scaling "$work/s" --at 512 --format markdown | grep -q '| 512 | 4 |' || fail "--at 512"
    ;;
  algorithms)
    "$bin/collbench" sweep --np 2 --env OMPI_MCA_coll_tuned_use_dynamic_rules=1 \
      --env OMPI_MCA_coll_tuned_allreduce_algorithm=1,2,3,4,5,6 --out "$work/a" -- \
      "$bin/all_reduce_perf" -b 1K -e 64K -f 8 --placement out "${quick[@]}" || fail "sweep exited $?"
    table="$work/a/speedup-OMPI_MCA_coll_tuned_allreduce_algorithm.md"
    [ -s "$table" ] || fail "no speedup table"
    header=$(grep '^| bytes' "$table")
    [ "$header" = "| bytes | OMPI_MCA_coll_tuned_allreduce_algorithm=1 time_us | OMPI_MCA_coll_tuned_allreduce_algorithm=2 | OMPI_MCA_coll_tuned_allreduce_algorithm=3 | OMPI_MCA_coll_tuned_allreduce_algorithm=4 | OMPI_MCA_coll_tuned_allreduce_algorithm=5 | OMPI_MCA_coll_tuned_allreduce_algorithm=6 |" ] \
      || fail "header: $header"
    [ "$(grep -c "^| " "$table")" -eq 5 ] || fail "expected a header, 3 sizes and a geomean row in one table"
    # The rows record which algorithm ran: the same table by algorithm, one column per algorithm.
    header=$("$bin/collbench" speedup --by algorithm "$work/a" --format csv | head -1)
    [ "$header" = "benchmark,backend,dtype,op,root,placement,world_size,tags,bytes,ompi-tuned-1 time_us,ompi-tuned-2,ompi-tuned-3,ompi-tuned-4,ompi-tuned-5,ompi-tuned-6" ] \
      || fail "by algorithm: $header"
    ;;
  compare_aa)
    # The same configuration three times a side, interleaved (collbench ab), judged on run-level
    # figures: per-iteration samples of one run are correlated and made this test flaky when they
    # were pooled. A false SLOWER needs the whole interval above the threshold (results/summarize).
    "$bin/collbench" ab --np 2 --runs 3 --max-runs 3 --out "$work/aa" --format markdown -- \
      "$bin/all_reduce_perf" --sizes 64K,256K -n 20 -w 3 -c 1 --samples -T 120 ::: \
      "$bin/all_reduce_perf" --sizes 64K,256K -n 20 -w 3 -c 1 --samples -T 120 > "$work/out.md" 2> "$work/err.txt"
    code=$?
    cat "$work/out.md"
    [ $code -eq 0 ] || fail "A/A ab exited $code: $(tail -3 "$work/err.txt")"
    grep -q '| verdict |' "$work/out.md" || fail "no verdict column"
    [ "$(grep -c '| 3/3 |' "$work/out.md")" -eq 5 ] || fail "expected 4 rows and the whole judged on 3 runs a side"
    grep -q 'signed-rank interval (runs paired' "$work/out.md" || fail "ab did not pair its runs"
    [ "$(ls "$work/aa/A"/run-*.json | wc -l)" -eq 3 ] && [ "$(ls "$work/aa/B"/run-*.json | wc -l)" -eq 3 ] || fail "not 3 reports a side"
    # The folders compare again by hand, to the same table.
    "$bin/collbench" compare "$work/aa/A" "$work/aa/B" --paired --format markdown > "$work/again.md" || fail "compare of the ab folders"
    diff <(grep '^| all_reduce' "$work/out.md") <(grep '^| all_reduce' "$work/again.md") || fail "compare differs from ab"
    ;;
  inject_slowdown)
    # A run with --inject-slowdown records it; compare refuses it as BASE (bad input, one line) and
    # takes it as NEW with a note.
    for name in plain injected; do
      extra=(); [ $name = injected ] && extra=(--inject-slowdown 50)
      "$bin/../../scripts/mpirun-local.sh" -np 2 "$bin/all_reduce_perf" -b 8 -e 1K -f 8 "${quick[@]}" "${extra[@]}" \
        -J "$work/$name.json" > "$work/$name.txt" 2>&1 || fail "$name run exited $?: $(tail -3 "$work/$name.txt")"
    done
    [ "$(jq '.context.options.inject_slowdown_percent' "$work/injected.json")" = 50 ] || fail "the injected run does not record 50"
    [ "$(jq '.context.options.inject_slowdown_percent' "$work/plain.json")" = 0 ] || fail "the plain run does not record 0"
    "$bin/collbench" compare "$work/injected.json" "$work/plain.json" > "$work/out.txt" 2> "$work/err.txt"
    code=$?
    [ $code -eq 2 ] || fail "an injected BASE exited $code"
    [ "$(wc -l < "$work/err.txt")" -eq 1 ] && grep -q 'inject-slowdown 50%' "$work/err.txt" || fail "stderr: $(cat "$work/err.txt")"
    "$bin/collbench" compare "$work/plain.json" "$work/injected.json" > "$work/out.txt" 2> "$work/err.txt"
    code=$?
    [ $code -eq 0 ] || [ $code -eq 1 ] || fail "an injected NEW exited $code: $(cat "$work/err.txt")"
    grep -q 'ran with --inject-slowdown 50% (a synthetic slowdown)' "$work/out.txt" || fail "no note on the injected NEW"
    ;;
  ab)
    # Two tiny real commands without a launcher; a failing command is a runtime error (exit 1), and
    # an ab folder is never reused.
    "$bin/collbench" ab --launcher none --runs 3 --max-runs 4 --out "$work/ab" --format csv -- \
      "$bin/all_reduce_perf" -b 8 -e 64 -f 8 "${quick[@]}" ::: "$bin/broadcast_perf" -b 8 -e 64 -f 8 "${quick[@]}" \
      > "$work/out.csv" 2> "$work/err.txt"
    code=$?
    # Different benchmarks share no row: bad input, after the first 3 runs a side.
    [ $code -eq 2 ] || fail "ab of two benchmarks exited $code: $(cat "$work/err.txt")"
    "$bin/collbench" ab --launcher none --state-reruns 0 --runs 3 --max-runs 4 --out "$work/ab2" --format csv -- \
      "$bin/all_reduce_perf" -b 8 -e 64 -f 8 "${quick[@]}" ::: "$bin/all_reduce_perf" -b 8 -e 64 -f 8 "${quick[@]}" \
      > "$work/out.csv" 2> "$work/err.txt"
    code=$?
    [ $code -eq 0 ] || [ $code -eq 1 ] || fail "ab exited $code: $(cat "$work/err.txt")"
    head -1 "$work/out.csv" | grep -q ',runs,more_runs,verdict$' || fail "csv header: $(head -1 "$work/out.csv")"
    runs=$(ls "$work/ab2/A"/run-*.json | wc -l)
    [ "$runs" -ge 3 ] && [ "$runs" -le 4 ] || fail "$runs runs of A"
    [ "$(ls "$work/ab2/B"/run-*.json | wc -l)" -eq "$runs" ] || fail "A and B ran a different number of times"
    grep -q '^\[ab\] run 1 A' "$work/err.txt" && grep -q '^\[ab\] run 1 B' "$work/err.txt" || fail "no progress lines"
    # ABBA: the first pair runs A first, the second B first.
    [ "$(grep -o '^\[ab\] run [12] [AB]' "$work/err.txt" | head -4 | tr '\n' ' ')" = "[ab] run 1 A [ab] run 1 B [ab] run 2 B [ab] run 2 A " ] ||
      fail "pairs do not alternate which side runs first: $(grep '^\[ab\] run' "$work/err.txt" | head -4 | tr '\n' ' ')"
    "$bin/collbench" ab --launcher none --out "$work/ab2" -- true ::: true 2> "$work/err.txt"
    [ $? -eq 2 ] || fail "a folder of another comparison was accepted"
    # Killed during run 3 of B: the same command again keeps the two complete pairs and runs pair 3 again.
    "$bin/collbench" ab --launcher none --state-reruns 0 --runs 3 --max-runs 3 --out "$work/ab4" --format csv -- \
      "$bin/all_reduce_perf" -b 8 -e 64 -f 8 "${quick[@]}" ::: "$bin/all_reduce_perf" -b 8 -e 64 -f 8 "${quick[@]}" \
      > /dev/null 2> "$work/err.txt" || [ $? -eq 1 ] || fail "ab4 exited $?: $(cat "$work/err.txt")"
    rm "$work/ab4/B/run-3.json"
    first=$(stat -c %Y.%s "$work/ab4/A/run-1.json")
    sleep 1
    "$bin/collbench" ab --launcher none --state-reruns 0 --runs 3 --max-runs 3 --out "$work/ab4" --format csv -- \
      "$bin/all_reduce_perf" -b 8 -e 64 -f 8 "${quick[@]}" ::: "$bin/all_reduce_perf" -b 8 -e 64 -f 8 "${quick[@]}" \
      > "$work/out.csv" 2> "$work/err.txt"
    code=$?
    [ $code -eq 0 ] || [ $code -eq 1 ] || fail "resumed ab exited $code: $(cat "$work/err.txt")"
    grep -q 'resuming .*: 2 complete run pair(s) kept' "$work/err.txt" || fail "no resume line: $(cat "$work/err.txt")"
    [ "$(grep -c '^\[ab\] run ' "$work/err.txt")" -eq 2 ] && grep -q '^\[ab\] run 3 A' "$work/err.txt" || fail "resume ran other runs than pair 3"
    [ "$(stat -c %Y.%s "$work/ab4/A/run-1.json")" = "$first" ] || fail "a kept run was run again"
    [ -s "$work/ab4/B/run-3.json" ] || fail "run 3 of B was not run again"
    "$bin/collbench" ab --launcher none --out "$work/ab3" -- "$bin/all_reduce_perf" -b 8 -e 8 "${quick[@]}" ::: false 2> "$work/err.txt"
    [ $? -eq 1 ] || fail "a failing B was not a runtime error"
    grep -q 'run 1 of B' "$work/err.txt" || fail "the failing run is not named: $(cat "$work/err.txt")"
    ;;
  resume)
    # reduce_perf -r 1 is bad usage at 1 rank (exit 2) and fine at 2: one failed point, one good.
    "$bin/collbench" sweep --np 1,2 --out "$work/r" -- "$bin/reduce_perf" -r 1 -b 8 -e 64 -f 8 "${quick[@]}" > "$work/first.txt" 2>&1
    code=$?
    [ $code -eq 1 ] || fail "sweep with a failed point exited $code"
    grep -q '"status": "failed"' "$work/r/sweep.manifest" || fail "failed point not recorded"
    grep -q 'np1.r1' "$work/r/sweep.md" || fail "sweep.md lacks the failed point"
    before=$(stat -c %Y.%s "$work/r/np2.r1.json")
    sleep 1
    "$bin/collbench" sweep --np 1,2 --out "$work/r" -- "$bin/reduce_perf" -r 1 -b 8 -e 64 -f 8 "${quick[@]}" > "$work/second.txt" 2>&1
    grep -q '1 ran, 1 done before, 1 failed' "$work/second.txt" || fail "resume: $(tail -3 "$work/second.txt")"
    [ "$(stat -c %Y.%s "$work/r/np2.r1.json")" = "$before" ] || fail "finished point was run again"
    ;;
  table_formats)
    "$bin/../../scripts/mpirun-local.sh" -np 2 "$bin/broadcast_perf" -b 8 -e 1K -f 4 "${quick[@]}" -J "$work/b.json" > "$work/perf.txt" 2>&1 \
      || fail "broadcast_perf"
    "$bin/collbench" table "$work/b.json" > "$work/table.txt" || fail "table text"
    # The same nccl-tests lines as the run printed (the data lines, not the header).
    diff <(grep -E '^ +[0-9]' "$work/perf.txt") <(grep -E '^ +[0-9]' "$work/table.txt") || fail "table differs from the run's"
    for format in markdown csv json; do
      "$bin/collbench" table "$work/b.json" --format $format > "$work/t.$format" || fail "table $format"
    done
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert len(d['tables'][0]['rows']) == 8" "$work/t.json" || fail "json rows"
    [ "$(wc -l < "$work/t.csv")" -eq 9 ] || fail "csv rows"
    ;;
  hostile)
    # Report text is data: backquotes, quotes, newlines, escape sequences, Markdown pipes and
    # spreadsheet formulas in every string that reaches a plot or a table must stay inert.
    "$bin/all_reduce_perf" -b 8 -e 64 -f 2 -n 2 -w 1 -J "$work/r.json" --tag "site=\`touch $work/PWNED_tag\`" \
      > /dev/null || fail "all_reduce_perf"
    python3 - "$work/r.json" "$work" <<'PY' || fail "could not write the hostile report"
import json, sys
path, work = sys.argv[1], sys.argv[2]
report = json.load(open(path))
evil = {
    "backtick": "`touch %s/PWNED_backtick`" % work,
    "quotes": "a\"; system('touch %s/PWNED_system'); \"'" % work,
    "newline": "x\n| injected | row |\nplot '/etc/passwd'",
    "escape": "\x1b[2J\x1b[31mred",
    "formula": "=HYPERLINK(\"http://example.invalid\")",
    "macro": "@x $HOME `id`",
}
report["context"]["tags"].update(evil)
report["context"]["backend"] = evil["formula"]
for rank in report["context"]["ranks"]:
    rank["host"] = evil["escape"]
    rank["device"] = evil["newline"]
for row in report["results"]:
    row["algorithm"] = evil["backtick"] + evil["newline"]
    row["backend"] = evil["formula"]
json.dump(report, open(path, "w"))
PY
    "$bin/collbench" plot "$work/r.json" --metric time --out "$work/p.svg" > "$work/plot.txt" 2>&1 || fail "plot: $(cat "$work/plot.txt")"
    grep -q 'wrote .*p.svg' "$work/plot.txt" || fail "gnuplot did not render: $(cat "$work/plot.txt")"
    [ -s "$work/p.svg" ] || fail "no svg"
    for format in text markdown csv; do
      "$bin/collbench" table "$work/r.json" --format $format > "$work/t.$format" || fail "table $format"
      "$bin/collbench" scaling "$work/r.json" --format $format > "$work/s.$format" || fail "scaling $format"
    done
    "$bin/collbench" table "$work/r.json" > "$work/nccl.txt" || fail "nccl table"
    # speedup's columns are the --by key's values: report text in the text table's header.
    python3 - "$work/r.json" "$work/r2.json" <<'PY' || fail "could not write the second hostile report"
import json, sys
report = json.load(open(sys.argv[1]))
report["context"]["tags"]["site"] = "\x1b]0;title\x07\nsecond\x9b31m \u009b1m"
for row in report["results"]:
    row["algorithm"] = "\x1b[31mother\nline"
json.dump(report, open(sys.argv[2], "w"))
PY
    "$bin/collbench" speedup "$work/r.json" "$work/r2.json" --by tag.site > "$work/sp.text" 2>&1 || fail "speedup by tag: $(cat "$work/sp.text")"
    "$bin/collbench" speedup "$work/r.json" "$work/r2.json" --by algorithm > "$work/sa.text" 2>&1 || fail "speedup by algorithm: $(cat "$work/sa.text")"
    python3 - "$work/sp.text" "$work/sa.text" <<'PY' || fail "a control character reached speedup's text output"
import sys
for path in sys.argv[1:]:
    data = open(path, "rb").read()
    assert not any(b < 0x20 and b not in (0x0a,) for b in data), (path, data[:200])
    assert b"\x1b" not in data and b"\xc2\x9b" not in data, path
    assert b"\nsecond" not in data and b"\nline" not in data, (path, "a newline from a report started a line")
PY
    ls "$work"/PWNED* 2>/dev/null && fail "a report string ran a command"
    grep -q $'\x1b' "$work"/t.* "$work"/s.* "$work/nccl.txt" && fail "an escape sequence reached the output"
    grep -q '^| injected' "$work"/t.markdown "$work"/s.markdown && fail "a newline forged a Markdown row"
    # Every Markdown row of a table has as many unescaped cell separators as its header.
    python3 - "$work/t.markdown" "$work/s.markdown" <<'PY' || fail "Markdown cells were split"
import re, sys
for path in sys.argv[1:]:
    width = None
    for line in open(path):
        if not line.startswith("|"):
            width = None
            continue
        cells = len(re.findall(r"(?<!\\)\|", line))
        width = width or cells
        assert cells == width, (path, line)
PY
    python3 - "$work/t.csv" <<'PY' || fail "CSV has a formula cell"
import csv, sys
for row in csv.reader(open(sys.argv[1])):
    for cell in row:
        assert not cell.startswith(("=", "+", "@")), cell
PY
    ;;
  interrupt)
    # SIGTERM to a sweep reaches the running point's mpirun and ranks: none outlives the sweep,
    # the point is recorded as interrupted, and the sweep exits non-zero.
    marker="interrupt-$$-$RANDOM"
    "$bin/collbench" sweep --np 2 --repeat 3 --out "$work/i" -- "$bin/all_reduce_perf" -b 8 -e 8 -n 100000000 -w 0 -c 0 \
      --tag "marker=$marker" > "$work/out.txt" 2>&1 &
    sweep_pid=$!
    for _ in $(seq 100); do pgrep -f "$marker" | grep -vq "^$sweep_pid\$" && break; sleep 0.1; done
    sleep 1
    kill -TERM $sweep_pid
    wait $sweep_pid
    code=$?
    [ $code -ne 0 ] || fail "an interrupted sweep exited 0"
    sleep 1
    if pgrep -f "all_reduce_perf.*$marker" > /dev/null; then pkill -KILL -f "$marker"; fail "ranks outlived the sweep"; fi
    grep -q '"status": "interrupted"' "$work/i/sweep.manifest" || fail "point not recorded as interrupted"
    grep -q 'interrupted by SIGTERM' "$work/out.txt" || fail "no line says the sweep was interrupted: $(tail -3 "$work/out.txt")"
    [ "$(grep -c '"name": "np2' "$work/i/sweep.manifest")" -eq 1 ] || fail "points after the interrupted one ran"
    ;;
  resume_other)
    # A folder holding another command's points is refused whole, before anything runs.
    "$bin/collbench" sweep --launcher none --out "$work/o" -- "$bin/all_reduce_perf" -b 8 -e 64 "${quick[@]}" > /dev/null 2>&1 \
      || fail "first sweep"
    before=$(stat -c %Y.%s "$work/o/np1.r1.json")
    "$bin/collbench" sweep --launcher none --out "$work/o" -- "$bin/reduce_perf" -b 8 -e 64 "${quick[@]}" > "$work/out.txt" 2> "$work/err.txt"
    code=$?
    [ $code -eq 2 ] || fail "sweep over another command's points exited $code"
    [ "$(wc -l < "$work/err.txt")" -eq 1 ] && grep -q 'holds a run of another command' "$work/err.txt" || fail "stderr: $(cat "$work/err.txt")"
    [ "$(stat -c %Y.%s "$work/o/np1.r1.json")" = "$before" ] || fail "the other command's report was replaced"
    ;;
  env_names)
    # Values that differ only in characters a file name cannot hold still get a point each.
    "$bin/collbench" sweep --launcher none --env "COLLBENCH_TEST_VALUE=^lo,=lo,_lo" --out "$work/e" -- \
      "$bin/all_reduce_perf" -b 8 -e 8 "${quick[@]}" > /dev/null 2>&1 || fail "sweep exited $?"
    [ "$(ls "$work/e"/*.json | wc -l)" -eq 3 ] || fail "expected 3 reports: $(ls "$work/e")"
    for value in '^lo' '=lo' '_lo'; do
      grep -lq "COLLBENCH_TEST_VALUE=$value\"" "$work/e"/*.json || fail "no report tagged $value"
    done
    ;;
  tune_mpi|tune_gloo)
    # collbench tune under real mpirun at 2 ranks: all_reduce at 3 sizes, 2 candidates, 2 run pairs
    # each (correctness only: no speed is asserted), then the file it wrote through --verify, and
    # the same file claiming 4 ranks refused.
    if [ $scenario = tune_mpi ]; then
      candidates=(--mpi-algorithms ring,recursive_doubling); file=ompi-rules.conf; backend=(); folders="mpi-4 mpi-3"; library=openmpi
    else
      candidates=(--gloo-algorithms ring,halving_doubling); file=gloo-algo.conf; backend=(--backend gloo); folders="gloo-ring gloo-halving_doubling"
      library=gloo
    fi
    bench=("$bin/all_reduce_perf" --sizes 1K,8K,64K --placement out "${backend[@]}" -n 5 -w 1 -c 1 -T 120)
    "$bin/collbench" tune --np 2 "${candidates[@]}" --runs 2 --max-runs 2 --state-reruns 0 --out "$work/t" --format csv -- "${bench[@]}" \
      > "$work/decision.csv" 2> "$work/err.txt" || fail "tune exited $?: $(tail -3 "$work/err.txt")"
    head -1 "$work/decision.csv" | grep -q '^bytes,default_us,best,best_us,change_%,low_%,high_%,verdict,choice,why$' || fail "header: $(head -1 "$work/decision.csv")"
    # The csv holds the size table (10 columns) and the ranges table (3).
    [ "$(awk -F, 'NF == 10 && $1 ~ /^[0-9]+$/' "$work/decision.csv" | wc -l)" -eq 3 ] || fail "expected 3 sizes: $(cat "$work/decision.csv")"
    grep -q '^1024,65536,default$' "$work/decision.csv" || fail "expected one default range: $(cat "$work/decision.csv")"
    # Two run pairs cannot make a signed-rank verdict: every size keeps the default, and says why.
    [ "$(grep -c ',default,no candidate FASTER (too few runs (2/2))$' "$work/decision.csv")" -eq 3 ] || fail "choices: $(cat "$work/decision.csv")"
    for folder in $folders; do
      for side in A B; do
        [ "$(ls "$work/t/$folder/$side"/run-*.json | wc -l)" -eq 2 ] || fail "$folder/$side does not hold 2 runs"
        for report in "$work/t/$folder/$side"/run-*.json; do
          [ "$(jq '[.results[] | select(.wrong != 0)] | length' "$report")" = 0 ] || fail "$report has wrong results"
          [ "$(jq '.results | length' "$report")" = 3 ] || fail "$report lacks rows"
        done
      done
    done
    grep -q 'candidate' "$work/t/decision.md" || fail "no decision.md"
    for line in "# tune: library=$library" '# tune: world_size=2' '# tune: collective=all_reduce' '# tune: runs=2 or more run pairs'; do
      grep -q "^$line" "$work/t/$file" || fail "$file lacks '$line'"
    done
    grep -q '^# tune: machine.cpu_model=' "$work/t/$file" || fail "$file does not name the machine"
    "$bin/collbench" tune --verify "$work/t/$file" --np 2 --runs 2 --max-runs 2 --state-reruns 0 --out "$work/v" --format csv -- "${bench[@]}" \
      > "$work/verify.csv" 2> "$work/err.txt"
    code=$?
    [ $code -eq 0 ] || [ $code -eq 1 ] || fail "verify exited $code: $(tail -3 "$work/err.txt")"
    # Its 3 sizes at 2 ranks, and again at 1 rank, below the file's world size, where it must change nothing.
    [ "$(grep -c '^[0-9]' "$work/verify.csv")" -eq 6 ] || fail "verify rows: $(cat "$work/verify.csv")"
    [ "$(ls "$work/v/verify/B"/run-*.json | wc -l)" -eq 2 ] || fail "verify did not run the file twice"
    [ "$(jq .context.world_size "$work/v/verify-below/B/run-1.json")" = 1 ] || fail "verify did not run the file at 1 rank"
    sed 's/^# tune: world_size=2$/# tune: world_size=4/' "$work/t/$file" > "$work/foreign.conf"
    "$bin/collbench" tune --verify "$work/foreign.conf" --np 2 --out "$work/f" -- "${bench[@]}" > /dev/null 2> "$work/err.txt"
    code=$?
    [ $code -eq 2 ] || fail "a file for 4 ranks verified at 2 exited $code"
    # (Open MPI's file holds no rules at 4 ranks, and says so; gloo's names the world size.)
    [ "$(wc -l < "$work/err.txt")" -eq 1 ] && grep -q '(world_size)\|no rules at its world size 4' "$work/err.txt" || fail "stderr: $(cat "$work/err.txt")"
    # Sizes the benchmark refuses: its own line, exit 2, before any candidate ran.
    "$bin/collbench" tune --np 2 "${candidates[@]}" --out "$work/bad" -- "$bin/all_reduce_perf" -b 64 -e 8 --placement out "${backend[@]}" > /dev/null 2> "$work/err.txt"
    code=$?
    [ $code -eq 2 ] || fail "sizes out of range exited $code"
    [ "$(wc -l < "$work/err.txt" | tr -d ' ')" -ge 1 ] && tail -1 "$work/err.txt" | grep -q 'refused its arguments: all_reduce_perf: error: minimum size 64 B' \
      || fail "stderr: $(cat "$work/err.txt")"
    if [ $scenario = tune_gloo ]; then
      # A candidate the backend cannot run is skipped with its reason: bcube at 3 ranks.
      "$bin/collbench" tune --np 3 --gloo-algorithms bcube,ring --runs 2 --max-runs 2 --state-reruns 0 --out "$work/np3" -- \
        "$bin/all_reduce_perf" --backend gloo --sizes 1K --placement out -n 3 -w 1 -c 1 -T 120 > "$work/np3.txt" 2> "$work/err.txt" \
        || fail "tune with a candidate gloo refuses exited $?: $(tail -3 "$work/err.txt")"
      grep -q '^note: skipped bcube: its run failed (all_reduce_perf: error: --algo bcube needs a world size that is a power of 2' "$work/np3.txt" \
        || fail "no skipped note: $(cat "$work/np3.txt")"
    fi
    ;;
  *) fail "unknown scenario" ;;
esac
echo "PASS ($scenario)"
