#!/usr/bin/env bash
# Records real torch.distributed jobs on the CPU (gloo, 2 ranks; gpu-verify at 1) with PyTorch's
# profiler (Kineto JSON, record_shapes=True) and its execution-trace observer (Chakra host ET JSON)
# on every rank (issue 61): the fixtures replay's trace readers are tested on
# (tests/replay/data/torch/, tests/replay/data/gpu-verify.trace.json). On demand; CI does not run
# it (torch is large). Needs a Python with torch (a venv from PyPI, outside the repository).
#
# usage: [PYTHON=venv/bin/python] scripts/validate/record_torch_traces.sh [DIR]
#   DIR  output (default: a new folder under /tmp); must be new or empty
# Then DIR holds <job>.rank<R>.kineto.json, <job>.rank<R>.et.json, ddp.expected.json (DDP's own
# bucket sizes) and environment.txt; scripts/validate/record_torch_traces.py says what each job runs.
# To refresh the committed fixtures: copy DIR's ddp.*, tp.* and pipeline.* files and
# gpu-verify.rank0.et.json to tests/replay/data/torch/, gpu-verify.rank0.kineto.json to
# tests/replay/data/gpu-verify.trace.json, and update tests/replay/data/torch/README.md.
# exit: 0 done, 1 a job failed, 2 torch missing / bad usage
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PYTHON=${PYTHON:-python3}

case "${1:-}" in -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
[ $# -le 1 ] || { echo "usage: $0 [DIR]" >&2; exit 2; }
if ! "$PYTHON" -c 'import torch, torch.distributed as d; assert d.is_available() and d.is_gloo_available()' >/dev/null 2>&1; then
  echo "record_torch_traces: torch with gloo is not importable by '$PYTHON'; make a venv outside the repository: python3 -m venv DIR && DIR/bin/pip install torch, then run with PYTHON=DIR/bin/python" >&2
  exit 2
fi
out=${1:-$(mktemp -d /tmp/collbench-torch-traces.XXXXXX)}
if [ -d "$out" ] && [ -n "$(ls -A "$out")" ]; then echo "record_torch_traces: $out is not empty" >&2; exit 2; fi
mkdir -p "$out"
{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "torch: $("$PYTHON" -c 'import torch; print(torch.__version__)' 2>/dev/null)"
  echo "python: $("$PYTHON" --version 2>&1)"
  echo "cpu: $(lscpu | grep -m1 'Model name' | sed 's/Model name: *//')"
} >"$out/environment.txt"

failed=0
for job in ddp tp pipeline gpu-verify; do
  ranks=2
  [ "$job" = gpu-verify ] && ranks=1
  echo "record_torch_traces: $job at $ranks rank(s)"
  if ! timeout 600 "$PYTHON" "$here/record_torch_traces.py" --job "$job" --world-size "$ranks" --out "$out" \
      >"$out/$job.log" 2>&1; then
    echo "record_torch_traces: $job failed; see $out/$job.log" >&2
    failed=1
  fi
done
ls -l "$out"
exit $failed
