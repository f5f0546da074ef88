#!/usr/bin/env bash
# Gloo all_reduce on a quiet and on a busy machine (issue 23, item 4): 2 ranks on this host,
# 8 B - 1 MiB, p50 per size, for each launch of collbench (mpirun with its default binding,
# mpirun --bind-to none, launched without MPI) and for torch.distributed's gloo when PYTHON has
# torch, first quiet, then with one `yes` running beside. The variants alternate in order each
# repetition; /proc/loadavg is recorded before every run.
#
# Usage: scripts/validate/gloo_stall.sh OUT_DIR [REPS]
#   BIN=build/bin  PYTHON=python3  LABEL=collbench  FIRST_REP=1  (env)
# To interleave two builds, call it once per build and repetition with REPS 1 and FIRST_REP set
# (results/gloo-stall/README.md has the commands).
# Writes OUT_DIR/runs/*.json (collbench reports), OUT_DIR/raw.jsonl (one line per run and size),
# OUT_DIR/log.txt; scripts/validate/gloo_stall_table.py OUT_DIR makes the table.
set -u
out=${1:?usage: gloo_stall.sh OUT_DIR [REPS]}
reps=${2:-3}
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin=${BIN:-$root/build/bin}
python=${PYTHON:-python3}
label=${LABEL:-collbench}
mkdir -p "$out/runs"
args=(--backend gloo --sizes 8,64,512,4K,32K,256K,1M -n 200 -w 20 -c 1)
as_root=(); [ "$(id -u)" -eq 0 ] && as_root=(--allow-run-as-root)
have_torch=0; "$python" -c "import torch.distributed" 2>/dev/null && have_torch=1

record() {  # VARIANT LOAD REP REPORT
  python3 - "$@" "$label" >> "$out/raw.jsonl" <<'PY'
import json, sys
variant, load, rep, report, label = sys.argv[1:6]
for row in json.load(open(report))["results"]:
    if row.get("placement") == "out":
        print(json.dumps({"variant": variant, "build": label, "load": load, "rep": int(rep), "bytes": row["bytes"], "p50_us": row["time_us"]["p50"]}))
PY
}

run_variant() {  # VARIANT LOAD REP
  local variant=$1 load=$2 rep=$3 report="$out/runs/$label-$1-$2-$3.json"
  echo "$(date -u +%T) $label $variant $load rep $rep loadavg $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/log.txt"
  case $variant in
    mpirun-bound) mpirun "${as_root[@]}" -np 2 "$bin/all_reduce_perf" "${args[@]}" -J "$report" --overwrite > /dev/null ;;
    mpirun-unbound) mpirun "${as_root[@]}" -np 2 --bind-to none "$bin/all_reduce_perf" "${args[@]}" -J "$report" --overwrite > /dev/null ;;
    no-launcher)
      local port=$((20000 + RANDOM % 20000)) pids=()
      for rank in 0 1; do
        RANK=$rank WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port "$bin/all_reduce_perf" "${args[@]}" -J "$report" --overwrite > /dev/null &
        pids+=($!)
      done
      wait "${pids[@]}" ;;
    torch)
      "$python" "$root/scripts/validate/gloo_torch_allreduce.py" --sizes 8,64,512,4096,32768,262144,1048576 --iters 200 --warmup 20 2> /dev/null |
        python3 -c "import json,sys; [print(json.dumps({'variant':'torch','build':'torch '+j['torch'],'load':sys.argv[1],'rep':int(sys.argv[2]),'bytes':j['bytes'],'p50_us':j['p50_us']})) for j in map(json.loads, sys.stdin)]" "$load" "$rep" >> "$out/raw.jsonl"
      return ;;
  esac
  [ -s "$report" ] && record "$variant" "$load" "$rep" "$report" || echo "  $variant $load rep $rep: no report" >&2
}

variants=(mpirun-bound mpirun-unbound no-launcher)
[ $have_torch = 1 ] && variants+=(torch)
for load in quiet yes; do
  spinner=""
  if [ $load = yes ]; then yes > /dev/null & spinner=$!; sleep 1; fi
  for rep in $(seq "${FIRST_REP:-1}" $(( ${FIRST_REP:-1} + reps - 1 ))); do
    order=("${variants[@]}")
    [ $((rep % 2)) = 0 ] && order=($(printf '%s\n' "${variants[@]}" | tac))
    for variant in "${order[@]}"; do run_variant "$variant" $load "$rep"; done
  done
  [ -n "$spinner" ] && kill "$spinner"
done
echo "raw figures in $out/raw.jsonl; table: python3 scripts/validate/gloo_stall_table.py $out"
