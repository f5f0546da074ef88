#!/usr/bin/env bash
# ab of 0ea08da (OLD_BIN: its own probe around each pair) and of 5ebd6e1 (NEW_BIN: the probe from the
# reports), in turns, each driving NEW_BIN's all_reduce_perf: A/A and +10 %.
#   OLD_BIN=... NEW_BIN=... OUT=... old_new_ab.sh [ROUNDS=6]
set -u
out=$OUT; rm -rf $out; mkdir -p $out
prog=$NEW_BIN/all_reduce_perf
args=(--sizes 64K,256K -n 500 -N 8 -w 5 -c 1 -T 120)
( while true; do echo "$(date -u +%H:%M:%S) $(cut -d' ' -f1-3 /proc/loadavg)"; sleep 30; done ) > "$out/load.txt" &
sampler=$!
trap 'kill $sampler' EXIT
echo "rule kind index exit runs_a_side wall_s detectable same faster slower unknown" > $out/results.txt
one() { # rule kind index extra...
  local rule=$1 kind=$2 i=$3; shift 3
  local ab=$NEW_BIN/collbench; [ "$rule" = old ] && ab=$OLD_BIN/collbench
  local s=$(date +%s.%N)
  "$ab" ab --np 2 --runs 3 --max-runs 10 --out $out/$rule-$kind$i --format json -- $prog "${args[@]}" ::: $prog "${args[@]}" "$@" > $out/$rule-$kind$i.json 2> $out/$rule-$kind$i.log
  local code=$?
  jq -r --arg r $rule --arg k $kind --arg i $i --arg c $code --arg w "$(echo "$(date +%s.%N) - $s" | bc | cut -c1-5)" \
    '"\($r) \($k) \($i) \($c) \(.runs_a_side) \($w) \(.detectable_change // "-") \(.counts.same) \(.counts.faster) \(.counts.slower) \(.counts.unknown)"' $out/$rule-$kind$i.json >> $out/results.txt 2>/dev/null || echo "$rule $kind $i $code failed" >> $out/results.txt
}
for i in $(seq 1 ${1:-6}); do
  if [ $((i % 2)) = 1 ]; then one new aa $i; one old aa $i; one old s10_ $i --inject-slowdown 10; one new s10_ $i --inject-slowdown 10
  else one old aa $i; one new aa $i; one new s10_ $i --inject-slowdown 10; one old s10_ $i --inject-slowdown 10; fi
done
