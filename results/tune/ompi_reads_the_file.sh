#!/usr/bin/env bash
# Shows that Open MPI reads a rules file that collbench tune wrote: all_reduce_perf at 2 ranks under
# gdb (at NP ranks, the sizes SIZES), a breakpoint on each of Open MPI's all-reduce algorithms, once with the file as tune wrote it
# (every rule 0: Open MPI's own choice) and once with its first rule set to algorithm 1 (basic
# linear). Prints which algorithm functions ran, and how often, for each.
# usage: results/tune/ompi_reads_the_file.sh RULES_FILE [NP] [SIZES]   (from the repository root, after
# scripts/build.sh; NP 2 and SIZES 1K,4M by default)
set -euo pipefail
rules=$(realpath "$1")
np=${2:-2}
sizes=${3:-1K,4M}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
{
  echo "set breakpoint pending on"
  echo "set pagination off"
  for name in basic_linear nonoverlapping recursivedoubling redscat_allgather ring ring_segmented; do
    printf 'break ompi_coll_base_allreduce_intra_%s\ncommands\nsilent\nprintf "ran %s\\n"\ncontinue\nend\n' "$name" "$name"
  done
  echo run
} >"$work/gdb.cmds"
# The first rule of the measured entry (tune's files since issue 59 hold an entry at 1 rank with Open
# MPI's own choice before it; earlier files begin with the measured entry).
awk -v measured="$(grep -c '^# the measured rules' "$rules")" \
  '/^# the measured rules/ { seen = 1 } /^0 0 0 0$/ && !done && (seen || !measured) { print "0 1 0 0"; done = 1; next } { print }' \
  "$rules" >"$work/forced.conf"
for file in "$rules" "$work/forced.conf"; do
  case $file in "$rules") echo "== the file as tune wrote it ($1)" ;; *) echo "== the same file, its first rule set to algorithm 1 (basic linear)" ;; esac
  rm -f "$work/r.json"
  OMPI_MCA_pml=ob1 mpirun --allow-run-as-root --oversubscribe -np "$np" --mca coll_tuned_use_dynamic_rules 1 \
    --mca coll_tuned_dynamic_rules_filename "$file" gdb -batch -x "$work/gdb.cmds" \
    --args build/bin/all_reduce_perf --sizes "$sizes" -n 5 -w 2 -c 0 -J "$work/r.json" 2>&1 | grep '^ran ' | sort | uniq -c
done
echo "== without the file (no dynamic rules)"
rm -f "$work/r.json"
OMPI_MCA_pml=ob1 mpirun --allow-run-as-root --oversubscribe -np "$np" gdb -batch -x "$work/gdb.cmds" \
  --args build/bin/all_reduce_perf --sizes "$sizes" -n 5 -w 2 -c 0 -J "$work/r.json" 2>&1 | grep '^ran ' | sort | uniq -c
