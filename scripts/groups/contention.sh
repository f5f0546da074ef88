#!/usr/bin/env bash
# Contention between concurrent groups on this machine (docs/groups.md): each group's time beside
# the other groups against its time alone, REPS interleaved repetitions (together, group 0
# alone, group 1 alone, then again), so a drift of the machine falls on both sides alike.
#
# Together: all_reduce_perf on 4 ranks with --split "MOD 2" (groups {0,2} and {1,3}). Alone: the
# same sweep on 2 ranks, a world that is one such group (launched alone, nothing else running).
# Per run the figure is the row's p10 (docs/measuring.md: interference only adds time); per size
# and group the table gives the median over repetitions of together and alone, and their ratio
# (contention_table.py, which recomputes it from the reports). Reports, the commands, the load
# before each run and contention.md go to OUT.
#
# usage: scripts/groups/contention.sh [--out DIR] [--reps N] [-- EXTRA FLAGS]
#   e.g. scripts/groups/contention.sh --out results/groups/contention --reps 7 -- -b 8 -e 4M -f 4 -n 50 -w 5
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source_dir="$(cd "$here/../.." && pwd)"
bin_dir=${COLLBENCH_BIN:-$source_dir/build/bin}
out=$source_dir/results/groups/contention reps=5
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "contention.sh: error: unknown argument $1 (see the usage line)" >&2; exit 2 ;;
  esac
done
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "contention.sh: error: --reps '$reps' is not a count" >&2; exit 2; }
extra=("$@")
[ ${#extra[@]} -gt 0 ] || extra=(-b 8 -e 1M -f 8 -n 20 -w 5)
mkdir -p "$out"
: >"$out/commands.txt"
: >"$out/load.txt"

run() {
  local name=$1 np=$2
  shift 2
  local command=("$source_dir/scripts/mpirun-local.sh" -np "$np" "$bin_dir/all_reduce_perf" "${extra[@]}" --placement out
                 -T 120 -J "$out/$name.json" --overwrite "$@")
  echo "$name:$(printf ' %q' "${command[@]}")" | sed "s|$source_dir/||g" >>"$out/commands.txt"  # quoted: each line runs as it reads
  echo "$name: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/load.txt"
  "${command[@]}" >"$out/$name.out" 2>"$out/$name.err" || { echo "contention.sh: error: $name failed, see $out/$name.err" >&2; exit 1; }
}

for rep in $(seq 1 "$reps"); do
  run "together.$rep" 4 --split "MOD 2" --slow-group-factor 0
  run "alone0.$rep" 2
  run "alone1.$rep" 2
done

# The files name this checkout's absolute path (argv, -J, the live table's report line): made
# relative to the repository, as results/ commits them.
find "$out" -maxdepth 1 -type f \( -name '*.json' -o -name '*.out' -o -name '*.err' \) -exec sed -i "s|$source_dir/||g" {} +
"$here/contention_table.py" "$out"
