#!/usr/bin/env bash
# ddp_step_perf reports through collbench: scaling over 1, 2 and 4 ranks (speedup in samples/s)
# and speedup --by bucket_mb, overlap and grad_dtype, each with its one-line best setting.
# usage: summarize_ddp.sh BIN_DIR SOURCE_DIR
set -uo pipefail
bin=$1 source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
model="$source/tests/ddp/data/small_model.csv"
for np in 1 2 4; do
  timeout 200 "$source/scripts/mpirun-local.sh" -np "$np" "$bin/ddp_step_perf" --model "$model" --batch 4 --bucket-mb 1,25 \
    --overlap on,off --grad-dtype float32,float16 -n 3 -w 1 -J "$work/np$np.json" > "$work/np$np.out" 2>&1 \
    || fail "ddp_step_perf -np $np: $(tail -3 "$work/np$np.out")"
done
"$bin/collbench" scaling "$work"/np*.json --format csv > "$work/scaling.csv" || fail "collbench scaling"
grep -q "samples_per_s" "$work/scaling.csv" || fail "scaling has no samples_per_s column"
for np in 1 2 4; do
  [ "$(awk -F, -v np="$np" '$12 == np' "$work/scaling.csv" | wc -l)" -eq 8 ] || fail "scaling: expected 8 series at world size $np: $(cat "$work/scaling.csv")"
done
"$bin/collbench" scaling "$work"/np*.json > "$work/scaling.txt"
grep -q "speedup = samples_per_s / samples_per_s at the smallest world size" "$work/scaling.txt" || fail "scaling note: $(tail -2 "$work/scaling.txt")"
for key in bucket_mb overlap grad_dtype; do
  "$bin/collbench" speedup --by "$key" "$work"/np*.json > "$work/$key.txt" || fail "collbench speedup --by $key"
  lines=$(grep -cE "^note: ($key .*(faster than|is the fastest)|no clear best $key)" "$work/$key.txt")
  [ "$lines" -ge 1 ] || fail "speedup --by $key says no best setting: $(tail -4 "$work/$key.txt")"
done
echo "ok: collbench scaling and speedup over ddp_step reports at 1, 2 and 4 ranks"
