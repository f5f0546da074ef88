#!/usr/bin/env bash
# replay_perf checked against real torch.distributed jobs (issue 61, item 4). For each world size
# and job: the job runs on the CPU with gloo, profiler and execution-trace observer on, logging the
# calls it issues itself (record_torch_traces.py); both traces are replayed with collbench's gloo
# backend (no MPI) and its mpi backend (mpirun), back to back and with --gaps trace (Kineto, which
# has timestamps); then
#   - sequence: the job's own calls against what each trace replays, every rank (100 % wanted),
#     and each report's rows against its trace (tests/replay/check_replay_report.py);
#   - timing: per (collective, size bucket, dtype, group size) replay_perf's time per call against
#     a comm-only torch.distributed loop over the same sequence (replay_vs_torch.py reference), run
#     twice: as torch runs it, and with torch's gloo I/O threads under SCHED_BATCH as replay_perf runs
#     its own (no real job does that: the like-for-like figure; results/replay/2026-12-07-torch says why);
#   - --gaps trace: the whole sequence's time beside the job's steps, the difference broken down.
# On demand, not in CI (torch is large). Needs a Python with torch (a venv outside the repository).
#
# usage: [PYTHON=venv/bin/python] [BIN=build/bin] scripts/validate/replay_vs_torch.sh [--ranks "2 4"]
#          [--jobs "ddp tp pipeline"] [--steps N] [--width N] [--passes N] OUT
#   --width  tp's hidden size and the pipeline's activation width (default 1024: 64 KiB and up
#            per call, where the 15 % target is judged; 0: the jobs' small defaults)
# OUT (new or empty) gets per world size and job: the traces, <job>.listing, the reports
# <job>.{gloo,mpi,gloo-gaps}.json, <job>.torch.json and <job>.torch-io-batch.json (the references),
# <job>.<backend>.compare.{csv,txt}, <job>.gaps.txt and sequence.txt; commands.txt, load.txt and
# environment.txt at the top.
# exit: 0 every sequence 100 %, 1 a mismatch or a failed step, 2 bad usage or no torch
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
PYTHON=${PYTHON:-python3}
BIN=${BIN:-$root/build/bin}
ranks="2 4" jobs="ddp tp pipeline" steps=3 width=1024 passes=10
while [ $# -gt 1 ] && [ "${1#-}" != "$1" ]; do
  case $1 in
    --ranks) ranks=$2 ;; --jobs) jobs=$2 ;; --steps) steps=$2 ;; --width) width=$2 ;; --passes) passes=$2 ;;
    *) echo "replay_vs_torch: unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
case "${1:-}" in
  -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  ""|-*) echo "usage: $0 [--ranks \"2 4\"] [--jobs \"ddp tp pipeline\"] [--steps N] [--width N] [--passes N] OUT" >&2; exit 2 ;;
esac
out=$1
if ! "$PYTHON" -c 'import torch, torch.distributed as d; assert d.is_gloo_available()' >/dev/null 2>&1; then
  echo "replay_vs_torch: torch with gloo is not importable by '$PYTHON' (python3 -m venv DIR && DIR/bin/pip install torch; PYTHON=DIR/bin/python)" >&2
  exit 2
fi
for program in replay_perf replay_read_trace; do
  [ -x "$BIN/$program" ] || { echo "replay_vs_torch: no $BIN/$program (build first, or set BIN)" >&2; exit 2; }
done
if [ -d "$out" ] && [ -n "$(ls -A "$out")" ]; then echo "replay_vs_torch: $out is not empty" >&2; exit 2; fi
mkdir -p "$out"
out="$(cd "$out" && pwd)"
{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "torch: $("$PYTHON" -c 'import torch; print(torch.__version__)' 2>/dev/null | tail -1)"
  echo "cpu: $(lscpu | grep -m1 'Model name' | sed 's/Model name: *//'), $(nproc) cores"
  echo "collbench: $("$BIN/replay_perf" --version | head -1)"
} >"$out/environment.txt"
load() { echo "$(date -u +%H:%M:%S) $1: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/load.txt"; }
run() {  # LOG COMMAND...: runs it, recorded in commands.txt
  local log=$1; shift
  echo "$*" >>"$out/commands.txt"
  timeout 900 "$@" >"$log" 2>&1
}
failed=0
load start
for world in $ranks; do
  for job in $jobs; do
    dir="$out/np$world"
    mkdir -p "$dir"
    load "np$world $job"
    width_flag=()
    [ "$job" != ddp ] && [ "$width" -gt 0 ] && width_flag=(--width "$width")
    if ! run "$dir/$job.record.log" "$PYTHON" "$here/record_torch_traces.py" --job "$job" --world-size "$world" --steps "$steps" \
        --log-calls "${width_flag[@]}" --out "$dir"; then
      echo "np$world $job: the torch job failed ($dir/$job.record.log)"; failed=1; continue
    fi
    truth=(--calls-prefix "$dir/$job")
    [ "$job" = ddp ] && truth=(--ddp-expected "$dir/ddp.expected.json")
    for format in kineto et; do
      files=() traces=()
      for ((rank = 0; rank < world; rank++)); do files+=("$dir/$job.rank$rank.$format.json"); traces+=(--trace "$dir/$job.rank$rank.$format.json"); done
      "$BIN/replay_read_trace" --calls "${files[@]}" >"$dir/$job.$format.listing" 2>&1 || { echo "np$world $job $format: unread"; failed=1; continue; }
      echo "np$world $job $format: $("$PYTHON" "$here/replay_vs_torch.py" sequence --listing "$dir/$job.$format.listing" --world "$world" "${truth[@]}")" |
        tee -a "$out/sequence.txt"
      "$PYTHON" "$here/replay_vs_torch.py" sequence --listing "$dir/$job.$format.listing" --world "$world" "${truth[@]}" >/dev/null || failed=1
      [ "$format" = kineto ] || continue
      for backend in gloo mpi gloo-gaps; do
        launcher=(env) extra=()
        case $backend in gloo|gloo-gaps) launcher=(env COLLBENCH_LOCAL_LAUNCHER=env) ;; esac
        [ "$backend" = gloo-gaps ] && extra=(--gaps trace)
        if run "$dir/$job.$backend.log" "${launcher[@]}" "$root/scripts/mpirun-local.sh" -np "$world" "$BIN/replay_perf" \
            --backend "${backend%-gaps}" "${traces[@]}" "${extra[@]}" -N 5 -n "$passes" -w 2 -c 1 -T 300 -J "$dir/$job.$backend.json"; then
          python3 "$root/tests/replay/check_replay_report.py" "$dir/$job.$backend.json" "$dir/$job.kineto.listing" --backend "${backend%-gaps}" \
            --cycles 5 >>"$out/sequence.txt" 2>&1 || { echo "np$world $job $backend: report rows differ from the trace"; failed=1; }
        else
          echo "np$world $job $backend: replay_perf failed ($dir/$job.$backend.log)"; failed=1
        fi
      done
      references=ok
      for io_thread in default batch; do
        reference=torch; [ $io_thread = batch ] && reference=torch-io-batch
        load "np$world $job reference, gloo I/O thread $io_thread"
        run "$dir/$job.$reference.log" "$PYTHON" "$here/replay_vs_torch.py" reference --listing "$dir/$job.kineto.listing" \
          --world "$world" --passes "$passes" --io-thread $io_thread --out "$dir/$job.$reference.json" ||
          { echo "np$world $job: the torch reference failed ($dir/$job.$reference.log)"; failed=1; references=failed; }
      done
      if [ $references = ok ]; then
        for backend in gloo mpi; do
          [ -s "$dir/$job.$backend.json" ] && "$PYTHON" "$here/replay_vs_torch.py" compare --replay "$dir/$job.$backend.json" \
            --reference "$dir/$job.torch.json" --reference-batch "$dir/$job.torch-io-batch.json" \
            --out "$dir/$job.$backend.compare.csv" >"$dir/$job.$backend.compare.txt"
        done
      fi
      if [ -s "$dir/$job.gloo-gaps.json" ]; then
        "$PYTHON" "$here/replay_vs_torch.py" gaps --report "$dir/$job.gloo-gaps.json" --listing "$dir/$job.kineto.listing" \
          --steps-prefix "$dir/$job" >"$dir/$job.gaps.txt" || { echo "np$world $job: no --gaps trace breakdown"; failed=1; }
      fi
    done
  done
done
load end
echo "replay_vs_torch: $out ($( [ $failed = 0 ] && echo 'every sequence 100 %' || echo 'FAILED: see above'))"
exit $failed
