#!/usr/bin/env bash
# Validates ddp_step_perf against real PyTorch DDP (issue 23, item 3). On demand; CI does not run
# it (torch is large). Needs a Python with torch (a venv from PyPI, outside the repository) and
# the built collbench binaries; collbench itself never needs torch.
#
# For each repetition and each (model, batch, bucket cap) it runs, one after the other and
# alternating which goes first: real DDP (scripts/validate/ddp_torch.py: 2 ranks, gloo, 1 thread
# each) and ddp_step_perf on the same tensors (2 ranks launched without MPI, env bootstrap, gloo,
# -t 1, --overlap on,off: the on row is the step, the off row gives the compute-only step), with
# /proc/loadavg before and after each run. Then DIR/table.md (side by side) from DIR/raw.jsonl:
# per setting torch's exposed communication (step - its no_sync step) beside ddp_step_perf's own
# exposed_us (its step - its compute alone, issue 46) and its in-step figure, and ddp_step_perf's
# hidden share against the one derived from torch (same communication time), with issue 46's targets.
#
# usage: [PYTHON=venv/bin/python] [BIN=build/bin] scripts/validate/ddp_vs_torch.sh [DIR]
#   DIR           output (default results/ddp/torch/<UTC date-time>/); must be new or empty
# settings from the environment (defaults in brackets):
#   REPS [5]  ITERS [10]  WARMUP [2]  BATCHES ["16 32"; "" runs no Linear model]  CAPS ["1 25 100 default"]
#   LAYERS [8]  HIDDEN [2048]  RANKS [2]  THREADS [1]
#   RESNET [auto: when torchvision imports; 0 off, 1 on]  RESNET_BATCHES ["2"]  RESNET_ITERS [5]
#   RESNET_CAPS [= CAPS]  IMAGE [224: ddp_step_perf's resnet50 preset assumes 224x224]
#   TORCH_ARGS [""; more ddp_torch.py options, e.g. "--zero-grad zeros --broadcast-buffers off"]
#   RUN_TIMEOUT [900 s per run]  NOTE [a line put at the top of table.md, e.g. "smoke run, busy machine"]
# DIR/runs/ holds each run's own output and reports (with this machine's paths): not for committing.
# smoke run: REPS=1 ITERS=3 BATCHES=16 CAPS="25" RESNET=0 scripts/validate/ddp_vs_torch.sh /tmp/smoke
# exit: 0 done, 1 a run failed, 2 torch or the binaries missing / bad usage
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

PYTHON=${PYTHON:-python3}
BIN=${BIN:-$root/build/bin}
REPS=${REPS:-5} ITERS=${ITERS:-10} WARMUP=${WARMUP:-2}
BATCHES=${BATCHES-"16 32"} CAPS=${CAPS:-"1 25 100 default"}
LAYERS=${LAYERS:-8} HIDDEN=${HIDDEN:-2048} RANKS=${RANKS:-2} THREADS=${THREADS:-1}
RESNET=${RESNET:-auto} RESNET_BATCHES=${RESNET_BATCHES-2} RESNET_ITERS=${RESNET_ITERS:-5}
RESNET_CAPS=${RESNET_CAPS:-$CAPS} IMAGE=${IMAGE:-224} RUN_TIMEOUT=${RUN_TIMEOUT:-900} NOTE=${NOTE:-} TORCH_ARGS=${TORCH_ARGS:-}

case "${1:-}" in -h|--help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
[ $# -le 1 ] || { echo "usage: $0 [DIR]" >&2; exit 2; }

if ! "$PYTHON" -c 'import torch, torch.distributed as d; assert d.is_available() and d.is_gloo_available()' >/dev/null 2>&1; then
  echo "ddp_vs_torch: torch with gloo is not importable by '$PYTHON'; make a venv outside the repository: python3 -m venv DIR && DIR/bin/pip install --index-url https://download.pytorch.org/whl/cpu torch (plain 'pip install torch' from PyPI also works), then run with PYTHON=DIR/bin/python" >&2
  exit 2
fi
[ -x "$BIN/ddp_step_perf" ] || { echo "ddp_vs_torch: no $BIN/ddp_step_perf; build collbench or set BIN=DIR" >&2; exit 2; }
command -v python3 >/dev/null || { echo "ddp_vs_torch: python3 is needed for the tables" >&2; exit 2; }
if [ "$RESNET" = auto ]; then
  if "$PYTHON" -c 'import torchvision' >/dev/null 2>&1; then RESNET=1; else RESNET=0; fi
  resnet_note="auto: torchvision $([ "$RESNET" = 1 ] && echo found || echo 'not importable, resnet50 skipped')"
else
  resnet_note="set: RESNET=$RESNET"
fi
if [ "$RESNET" = 1 ] && ! "$PYTHON" -c 'import torchvision' >/dev/null 2>&1; then
  echo "ddp_vs_torch: RESNET=1 but torchvision is not importable by '$PYTHON' (DIR/bin/pip install torchvision)" >&2
  exit 2
fi

out=${1:-$root/results/ddp/torch/$(date -u +%Y-%m-%d-%H%M)}
if [ -d "$out" ] && [ -n "$(ls -A "$out")" ]; then echo "ddp_vs_torch: $out is not empty" >&2; exit 2; fi
mkdir -p "$out/runs"
out="$(cd "$out" && pwd)"
raw="$out/raw.jsonl" commands="$out/commands.txt"
: >"$raw"
: >"$commands"
table_py="$here/ddp_vs_torch_table.py"
torch_py="$here/ddp_torch.py"

# The Linear model's ddp_step_perf file, written from LAYERS and HIDDEN (same tensors as ddp_torch.py's).
linear_model="$out/linear-${LAYERS}x${HIDDEN}.csv"
python3 "$torch_py" --write-model "$linear_model" --layers "$LAYERS" --hidden "$HIDDEN"

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
# Paths inside the output or the repository are written relative, BIN as $BIN: never this machine's.
show() { local text="$*"; text=${text//$BIN\//\$BIN/}; text=${text//$out\//}; text=${text//$root\//}; printf '%s' "$text"; }

{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "git: $(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)"
  echo "cpu: $(lscpu | grep -m1 'Model name' | sed 's/Model name: *//')"
  echo "nproc: $(nproc)"
  echo "torch: $("$PYTHON" -c 'import torch; print(torch.__version__)' 2>/dev/null)"
  echo "torchvision: $("$PYTHON" -c 'import torchvision; print(torchvision.__version__)' 2>/dev/null || echo none)"
  echo "ddp_step_perf: $("$BIN/ddp_step_perf" --version 2>&1 | head -1)"
  echo "BIN: $(show "$BIN/")"
  echo "OPENBLAS_CORETYPE: ${OPENBLAS_CORETYPE:-unset}"
  echo "settings: REPS=$REPS ITERS=$ITERS WARMUP=$WARMUP BATCHES=\"$BATCHES\" CAPS=\"$CAPS\" LAYERS=$LAYERS HIDDEN=$HIDDEN RANKS=$RANKS THREADS=$THREADS RESNET=$RESNET ($resnet_note) RESNET_BATCHES=\"$RESNET_BATCHES\" RESNET_ITERS=$RESNET_ITERS RESNET_CAPS=\"$RESNET_CAPS\" IMAGE=$IMAGE TORCH_ARGS=\"$TORCH_ARGS\""
  echo "load_at_start: $(loadavg)"
} >"$out/environment.txt"
lscpu | head -20 >"$out/lscpu.txt"

failed=0
start_all=$(date +%s)

# run_torch MODEL BATCH CAP REP ORDER ITERS
run_torch() {
  local model=$1 batch=$2 cap=$3 rep=$4 order=$5 iters=$6
  local name="torch-$model-b$batch-cap$cap-r$rep"
  local cmd=("$PYTHON" "$torch_py" --model "$model" --batch "$batch" --bucket-cap-mb "$cap" --iters "$iters"
             --warmup "$WARMUP" --world-size "$RANKS" --threads "$THREADS")
  if [ "$model" = linear ]; then cmd+=(--layers "$LAYERS" --hidden "$HIDDEN"); else cmd+=(--image "$IMAGE"); fi
  # shellcheck disable=SC2206  # TORCH_ARGS is a list of words
  cmd+=($TORCH_ARGS)
  local before after t0 t1 rc=0
  before=$(loadavg); t0=$(date +%s.%N)
  timeout "$RUN_TIMEOUT" "${cmd[@]}" >"$out/runs/$name.out" 2>"$out/runs/$name.err" || rc=$?
  t1=$(date +%s.%N); after=$(loadavg)
  printf '%s\n' "$(show "PYTHON=venv/bin/python ${cmd[*]:1}")" >>"$commands"
  if [ $rc -ne 0 ]; then
    echo "ddp_vs_torch: $name failed (exit $rc); see runs/$name.err" >&2; failed=1; return 0
  fi
  python3 "$table_py" record --side torch --setting "$model|$batch|$cap" --rep "$rep" --order "$order" \
    --load-before "$before" --load-after "$after" --wall "$(elapsed "$t0" "$t1")" \
    --cmd "$(show "${cmd[*]:1}")" --result "$out/runs/$name.out" >>"$raw"
  echo "  torch     $model batch $batch cap $cap rep $rep: $(elapsed "$t0" "$t1") s (load $before)"
}

# run_collbench MODEL BATCH CAP REP ORDER ITERS
run_collbench() {
  local model=$1 batch=$2 cap=$3 rep=$4 order=$5 iters=$6
  local name="collbench-$model-b$batch-cap$cap-r$rep"
  local model_arg model_file
  if [ "$model" = linear ]; then model_arg=$linear_model model_file=$linear_model
  else model_arg=resnet50 model_file=$root/src/workloads/ddp/presets/resnet50.csv; fi
  # shellcheck disable=SC2054  # on,off is one argument
  local cmd=("$BIN/ddp_step_perf" --model "$model_arg" --backend gloo --bootstrap env -t "$THREADS" --batch "$batch"
             -n "$iters" -w "$WARMUP" -c 1 --overlap on,off -J "$out/runs/$name.json")
  [ "$cap" = default ] || cmd+=(--bucket-mb "$cap")
  local port before after t0 t1 rc=0 pids=() r
  port=$(free_port)
  before=$(loadavg); t0=$(date +%s.%N)
  for ((r = 1; r < RANKS; r++)); do
    MASTER_ADDR=127.0.0.1 MASTER_PORT=$port WORLD_SIZE=$RANKS RANK=$r timeout "$RUN_TIMEOUT" "${cmd[@]}" \
      >"$out/runs/$name.rank$r.out" 2>&1 &
    pids+=($!)
  done
  MASTER_ADDR=127.0.0.1 MASTER_PORT=$port WORLD_SIZE=$RANKS RANK=0 timeout "$RUN_TIMEOUT" "${cmd[@]}" \
    >"$out/runs/$name.out" 2>"$out/runs/$name.err" || rc=$?
  for pid in "${pids[@]}"; do wait "$pid" || { r=$?; [ "$rc" -ne 0 ] || rc=$r; }; done
  t1=$(date +%s.%N); after=$(loadavg)
  printf '%s\n' "$(show "MASTER_ADDR=127.0.0.1 MASTER_PORT=<free> WORLD_SIZE=$RANKS RANK=<0..$((RANKS - 1))> ${cmd[*]}  # one process per rank")" >>"$commands"
  if [ $rc -ne 0 ] || [ ! -s "$out/runs/$name.json" ]; then
    echo "ddp_vs_torch: $name failed (exit $rc); see runs/$name.err" >&2; failed=1; return 0
  fi
  python3 "$table_py" record --side collbench --setting "$model|$batch|$cap" --rep "$rep" --order "$order" \
    --load-before "$before" --load-after "$after" --wall "$(elapsed "$t0" "$t1")" \
    --cmd "$(show "${cmd[*]}")" --result "$out/runs/$name.json" --model-file "$model_file" >>"$raw"
  echo "  collbench $model batch $batch cap $cap rep $rep: $(elapsed "$t0" "$t1") s (load $before)"
}

pair=0
for ((rep = 1; rep <= REPS; rep++)); do
  echo "repetition $rep of $REPS"
  settings=()
  for b in $BATCHES; do for c in $CAPS; do settings+=("linear $b $c $ITERS"); done; done
  if [ "$RESNET" = 1 ]; then
    for b in $RESNET_BATCHES; do for c in $RESNET_CAPS; do settings+=("resnet50 $b $c $RESNET_ITERS"); done; done
  fi
  for setting in "${settings[@]}"; do
    read -r model batch cap iters <<<"$setting"
    if ((pair % 2 == 0)); then
      run_torch "$model" "$batch" "$cap" "$rep" 1 "$iters"
      run_collbench "$model" "$batch" "$cap" "$rep" 2 "$iters"
    else
      run_collbench "$model" "$batch" "$cap" "$rep" 1 "$iters"
      run_torch "$model" "$batch" "$cap" "$rep" 2 "$iters"
    fi
    pair=$((pair + 1))
  done
done

echo "load_at_end: $(loadavg)" >>"$out/environment.txt"
echo "elapsed_s: $(($(date +%s) - start_all))" >>"$out/environment.txt"
python3 "$table_py" table --raw "$raw" --out "$out/table.md" --summary "$out/summary.json" --note "$NOTE"
echo "ddp_vs_torch: $(($(date +%s) - start_all)) s; table: $out/table.md"
exit $failed
