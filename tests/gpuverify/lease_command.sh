#!/usr/bin/env bash
# The prepared lease command of docs/gpu-verify.md: the text block after the line naming this
# script is under the 2,000 characters a lease's command may have, as long as the page says, parses
# as bash, and runs the parts in the page's order (what is there, the test phase, the sweep, the
# ceilings, -G/-R, two ranks on one GPU, --nccl-estimate, ab A/A, the DDP script, this wave's
# optional steps).
# usage: lease_command.sh SOURCE_DIR
set -uo pipefail
page="$1/docs/gpu-verify.md"
fail() { echo "FAIL: $*"; exit 1; }
command=$(awk '/lease_command.sh reads the block below/ {found = 1; next}
               found && /^```text$/ {inside = 1; next}
               inside && /^```$/ {exit}
               inside {print}' "$page")
[ -n "$command" ] || fail "no lease command block in $page"
[ "$(wc -l <<<"$command")" = 1 ] || fail "the command is not one line"
length=${#command}
[ "$length" -lt 2000 ] || fail "the command has $length characters, a lease's may have 2000"
stated=$(grep -o 'It is [0-9,]* characters' "$page" | tr -dc '0-9')
[ "$stated" = "$length" ] || fail "the page says $stated characters, the command has $length"
bash -n <<<"$command" || fail "the command does not parse"
position=0
for part in 'nvidia-smi -q' '--phase test' '--steps collectives' '--steps compute,copy' '--steps graph,registered' \
            '$l 2 $b/all_reduce_perf --backend nccl' '--nccl-estimate' 'collbench ab' 'ddp_gpu_vs_torch.py' \
            '--steps explain,replay,split,tuner_plugin'; do
  rest=${command:$position}
  [[ $rest == *"$part"* ]] || fail "'$part' is missing or out of order"
  before=${rest%%"$part"*}
  position=$((position + ${#before} + ${#part}))
done
echo "ok: $length characters, parses, parts in order"
