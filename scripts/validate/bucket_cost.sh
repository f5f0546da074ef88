#!/usr/bin/env bash
# Each DDP bucket's all-reduce as torch pays it from inside DDP, beside collbench's gloo all-reduce
# of the same bytes (issue 46 item 3). On demand; CI does not run it. Needs a Python with torch (a
# venv outside the repository, as scripts/validate/ddp_vs_torch.sh says) and the built binaries.
#
# Per repetition, in alternating order: ddp_torch.py --profile-buckets STEPS (2 ranks, gloo, 1
# thread each: per bucket, the reducer's call to gloo's start, gloo's all-reduce, and the call to
# its end, slowest rank, median over the profiled steps), and all_reduce_perf --backend gloo at the
# buckets' sizes (2 ranks launched without MPI, as ddp_step_perf's gloo path runs, -n ITERS), each
# with /proc/loadavg before. Then DIR/table.md from DIR/raw.jsonl (scripts/validate/bucket_cost_table.py).
#
# usage: [PYTHON=venv/bin/python] [BIN=build/bin] scripts/validate/bucket_cost.sh DIR
# settings (defaults): REPS [5] STEPS [10] ITERS [50] LAYERS [8] HIDDEN [2048] BATCH [16] CAP [1]
# exit: 0 done, 1 a run failed, 2 torch or the binaries missing / bad usage
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
PYTHON=${PYTHON:-python3} BIN=${BIN:-$root/build/bin}
REPS=${REPS:-5} STEPS=${STEPS:-10} ITERS=${ITERS:-50} LAYERS=${LAYERS:-8} HIDDEN=${HIDDEN:-2048} BATCH=${BATCH:-16} CAP=${CAP:-1}
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
"$PYTHON" -c 'import torch.distributed as d; assert d.is_gloo_available()' >/dev/null 2>&1 ||
  { echo "bucket_cost: torch with gloo is not importable by '$PYTHON' (see scripts/validate/ddp_vs_torch.sh)" >&2; exit 2; }
[ -x "$BIN/all_reduce_perf" ] || { echo "bucket_cost: no $BIN/all_reduce_perf; build collbench or set BIN=DIR" >&2; exit 2; }
out=$1
if [ -d "$out" ] && [ -n "$(ls -A "$out")" ]; then echo "bucket_cost: $out is not empty" >&2; exit 2; fi
mkdir -p "$out/runs"
raw=$out/raw.jsonl
: >"$raw"
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "git: $(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)"
  echo "cpu: $(lscpu | grep -m1 'Model name' | sed 's/Model name: *//'), nproc $(nproc)"
  echo "torch: $("$PYTHON" -c 'import torch; print(torch.__version__)')"
  echo "settings: REPS=$REPS STEPS=$STEPS ITERS=$ITERS LAYERS=$LAYERS HIDDEN=$HIDDEN BATCH=$BATCH CAP=$CAP"
  echo "load_at_start: $(loadavg)"
} >"$out/environment.txt"
torch_cmd=("$PYTHON" "$here/ddp_torch.py" --layers "$LAYERS" --hidden "$HIDDEN" --batch "$BATCH" --bucket-cap-mb "$CAP"
           --iters 3 --profile-buckets "$STEPS")
# The bucket sizes, from one torch run (DDP's rebuilt buckets; the same every run).
"${torch_cmd[@]}" >"$out/runs/sizes.json" 2>"$out/runs/sizes.err"
sizes=$(python3 -c 'import json,sys; print(",".join(str(b) for b in sorted(set(json.load(open(sys.argv[1]))["bucket_bytes"]))))' "$out/runs/sizes.json")
coll_cmd=("$BIN/all_reduce_perf" --backend gloo --sizes "$sizes" -n "$ITERS" -w 5 -c 1 --placement out)
echo "torch: PYTHON=venv/bin/python ${torch_cmd[*]:1}" | sed "s#$here/#scripts/validate/#" >"$out/commands.txt"
echo "collbench: scripts/launch-local.sh -np 2 ${coll_cmd[*]/#$BIN\//build/bin/} -J runs/collbench-rREP.json" >>"$out/commands.txt"
run_torch() {
  local before; before=$(loadavg)
  "${torch_cmd[@]}" >"$out/runs/torch-r$1.json" 2>"$out/runs/torch-r$1.err" || { echo "bucket_cost: torch run $1 failed" >&2; return 1; }
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(json.dumps({"side":"torch","rep":int(sys.argv[2]),"load":sys.argv[3],"bucket_cost":r["bucket_cost"]}))' \
    "$out/runs/torch-r$1.json" "$1" "$before" >>"$raw"
}
run_collbench() {
  local before; before=$(loadavg)
  "$root/scripts/launch-local.sh" -np 2 "${coll_cmd[@]}" -J "$out/runs/collbench-r$1.json" >"$out/runs/collbench-r$1.out" 2>&1 ||
    { echo "bucket_cost: collbench run $1 failed" >&2; return 1; }
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(json.dumps({"side":"collbench","rep":int(sys.argv[2]),"load":sys.argv[3],"rows":[{"bytes":x["bytes"],"time_us":x["time_us"]} for x in r["results"]]}))' \
    "$out/runs/collbench-r$1.json" "$1" "$before" >>"$raw"
}
for ((rep = 1; rep <= REPS; rep++)); do
  if ((rep % 2)); then run_torch "$rep"; run_collbench "$rep"; else run_collbench "$rep"; run_torch "$rep"; fi
  echo "repetition $rep of $REPS done (load $(loadavg))"
done
echo "load_at_end: $(loadavg)" >>"$out/environment.txt"
python3 "$here/bucket_cost_table.py" "$raw" >"$out/table.md"
cat "$out/table.md"
