#!/usr/bin/env bash
# Fails when a source file includes a header from a layer above its own.
#
# The layers, bottom-up (DESIGN.md): core; report; cuda (the CUDA utility library, on core);
# backends and engines (GEMM, STREAM and copy engines, host probing), which may call CUDA; harness
# (program shell, driver, loop); workloads, one folder per kind, each a descriptor over the
# harness's driver. summarize reads only the report schema, each of its rooms only the rooms below. Each folder of src/ lists the folders
# it may include from; a folder missing here is an error too, so a new folder has to say where it
# stands. A kind's report/ folder (src/workloads/<kind>/report/: its row kinds and reader views,
# compiled into the report library) is on the report layer: it includes only what report may,
# and report and summarize may include it.
# Usage: check_layers.sh SRC_DIR
set -euo pipefail
src=${1:?usage: check_layers.sh SRC_DIR}

declare -A may_include=(
  [core]="core"
  [report]="core report"
  [cuda]="core cuda"
  [backends]="core cuda backends"
  [engines]="core cuda engines"
  [harness]="core report backends engines harness"
  [workloads]="core report cuda backends engines harness workloads"
  # summarize's rooms, bottom-up: what every command reads (common), the verdicts, plots, tables,
  # models, the commands that run benchmarks (runs: sweep, ab), tuning, explain, and the CLI.
  [summarize/common]="core report summarize/common"
  [summarize/verdicts]="core report summarize/common summarize/verdicts"
  [summarize/plots]="core report summarize/common summarize/verdicts summarize/plots"
  [summarize/tables]="core report summarize/common summarize/verdicts summarize/plots summarize/tables"
  [summarize/models]="core report summarize/common summarize/verdicts summarize/plots summarize/tables summarize/models"
  [summarize/runs]="core report summarize/common summarize/verdicts summarize/plots summarize/tables summarize/runs"
  [summarize/tuning]="core report summarize/common summarize/verdicts summarize/plots summarize/tables summarize/runs summarize/tuning"
  [summarize/explain]="core report summarize/common summarize/verdicts summarize/plots summarize/tables summarize/models summarize/explain"
  [summarize/cli]="core report summarize/common summarize/verdicts summarize/plots summarize/tables summarize/models summarize/runs summarize/tuning summarize/explain summarize/cli"
  [tuner_plugin]="core tuner_plugin"
)

# The layer of a path under src/, into `layer`: its first folder, but report for a kind's report/
# folder and summarize/<room> for a room of summarize (a file directly in summarize/ has no place).
# (A variable, not output: a subshell per include would fork thousands of times.)
layer_of() {
  if [[ $1 =~ ^workloads/[^/]+/report/ ]]; then layer=report
  elif [[ $1 =~ ^(summarize/[^/]+)/ ]]; then layer=${BASH_REMATCH[1]}
  else layer=${1%%/*}; fi
}

violations=0
while IFS= read -r -d '' file; do
  relative=${file#"$src"/}
  layer_of "$relative"
  file_layer=$layer
  allowed=${may_include[$file_layer]-}
  if [ -z "$allowed" ]; then
    echo "$relative: folder src/$file_layer has no place in the layering (add it to tests/layering/check_layers.sh)"
    violations=$((violations + 1))
    continue
  fi
  while IFS= read -r target; do
    [ -d "$src/${target%%/*}" ] || continue  # a third-party header, not one of ours
    layer_of "$target"
    if [[ " $allowed " != *" $layer "* ]]; then
      echo "$relative includes \"$target\": the $file_layer layer may include only from: $allowed"
      violations=$((violations + 1))
    fi
  done < <(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]+"([^"]+)".*/\1/p' "$file")
done < <(find "$src" -type f \( -name '*.h' -o -name '*.cpp' -o -name '*.cu' -o -name '*.cuh' \) -print0)

if [ "$violations" -gt 0 ]; then
  echo "layering: $violations include(s) point up a layer"
  exit 1
fi
echo "layering: every include in $src points down or across"
