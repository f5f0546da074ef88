#!/usr/bin/env bash
# Open MPI 4.1 reads a rules file `collbench tune` wrote, and changes only what was measured: a file
# for 3 ranks that forces an algorithm Open MPI does not pick there by itself (basic linear; chain for
# broadcast, whose own choice at 4 KiB and 3 ranks is basic linear) from 4000 to 4100 bytes is fed to Open MPI
# (coll_tuned_use_dynamic_rules) at 2, 3 and 4 ranks, and rank 0 runs under gdb with a breakpoint on
# each of Open MPI's algorithm functions of the collective, printing the function and its count as
# Open MPI's decision called it. Each run is compared with the same run without the file:
#   - at 2 and 4 ranks every call runs what it runs without the file (the entries at 1 rank and at
#     4 ranks hold Open MPI's own choice);
#   - at 3 ranks the 4 KiB call runs the forced algorithm, which it does not without the file, and every
#     other call (256 B and 64 KiB, outside the range, and collbench's own control messages) runs
#     what it runs without the file.
# usage: ompi_decision.sh all_reduce|broadcast|all_gather BIN_DIR
set -u
collective=$1
bin=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL ($collective): $*"; exit 1; }
command -v gdb > /dev/null || { echo "SKIP: no gdb"; exit 0; }

forced=basic_linear number=1
case $collective in
  all_reduce) prefix=ompi_coll_base_allreduce_intra_; count='(int)$rdx'  # (sbuf, rbuf, count, ...)
    functions="basic_linear nonoverlapping recursivedoubling redscat_allgather ring ring_segmented" ;;
  broadcast) prefix=ompi_coll_base_bcast_intra_; count='(int)$rsi' forced=chain number=2  # (buffer, count, ...)
    functions="basic_linear chain pipeline split_bintree bintree binomial knomial scatter_allgather scatter_allgather_ring" ;;
  all_gather) prefix=ompi_coll_base_allgather_intra_; count='(int)$rsi'  # (sbuf, scount, ...)
    functions="basic_linear bruck recursivedoubling ring neighborexchange two_procs" ;;
  *) fail "unknown collective" ;;
esac
# The algorithm functions are Open MPI's coll base, in libmpi itself: gdb reads that library's
# symbols alone, at main, not those of every component Open MPI opens later (re-resolving pending
# breakpoints at each of its dozens of dlopens took half the test's CPU: 1.15 CPU-s a gdb run
# against 0.54, 2026-12-08). A function gdb cannot find stops the command file, so no "ran" lines.
{
  echo "set pagination off"
  echo "set breakpoint pending off"
  echo "set auto-solib-add off"
  echo "break main"
  echo run
  echo "sharedlibrary libmpi"
  for name in $functions; do
    printf 'break %s%s\ncommands\nsilent\nprintf "\\nran %s %%d\\n", %s\ncontinue\nend\n' "$prefix" "$name" "$name" "$count"
  done
  echo continue
} > "$work/gdb.cmds"
cat > "$work/rank0.sh" <<SCRIPT
#!/bin/sh
# Rank 0 under gdb, the others as they are: every rank takes the same decision.
if [ "\$OMPI_COMM_WORLD_RANK" = 0 ]; then
  exec gdb -batch -nx -iex "set debuginfod enabled off" -x "$work/gdb.cmds" --args "\$@" > "\$RANK0_OUT" 2>&1
fi
exec "\$@"
SCRIPT
chmod +x "$work/rank0.sh"
"$bin/write_tuning_file" openmpi "$collective" 3 4000 4100 $number > "$work/rules.conf" || fail "write_tuning_file exited $?"

# Which algorithm function ran for each call at rank 0, as "function count" lines, sorted.
decisions() {  # NP with|without
  local out="$work/$1-$2"
  local rules=()
  [ "$2" = with ] && rules=(--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename "$work/rules.conf")
  RANK0_OUT=$out.gdb OMPI_MCA_pml=ob1 timeout 120 mpirun --allow-run-as-root --oversubscribe -np "$1" -x RANK0_OUT "${rules[@]}" \
    "$work/rank0.sh" "$bin/${collective}_perf" --sizes 256,4K,64K --placement out -n 1 -w 0 -c 0 -J "$out.json" > "$out.log" 2>&1 \
    || fail "$1 ranks $2 the file exited $?: $(tail -3 "$out.log")"
  grep -o '^ran [a-z_]* [0-9]*' "$out.gdb" | sort > "$out.ran"
  [ -s "$out.ran" ] || fail "gdb saw no algorithm function at $1 ranks $2 the file: $(tail -3 "$out.gdb")"
}
for np in 2 3 4; do
  decisions $np with
  decisions $np without
done
for np in 2 4; do
  diff "$work/$np-with.ran" "$work/$np-without.ran" > "$work/$np.diff" || fail "the file changed Open MPI's choice at $np ranks: $(cat "$work/$np.diff")"
done
# The 4 KiB call's count at 3 ranks: all_gather's is one rank's block (1024 floats / 3, whole 16-byte units).
data_count=1024
[ "$collective" = all_gather ] && data_count=340
grep -q "^ran $forced $data_count\$" "$work/3-with.ran" || fail "at 3 ranks 4 KiB did not run $forced with the file: $(cat "$work/3-with.ran")"
grep -q "^ran [a-z_]* $data_count\$" "$work/3-without.ran" || fail "gdb did not see the 4 KiB call without the file"
! grep -q "^ran $forced $data_count\$" "$work/3-without.ran" || fail "$forced is Open MPI's own choice at 4 KiB: the test cannot tell"
diff <(grep -v " $data_count\$" "$work/3-with.ran") <(grep -v " $data_count\$" "$work/3-without.ran") > "$work/3.diff" \
  || fail "the file changed Open MPI's choice outside its range at 3 ranks: $(cat "$work/3.diff")"
echo "PASS ($collective: $forced at 3 ranks in 4000-4100 B only; $(grep " $data_count\$" "$work/3-without.ran" | cut -d' ' -f2 | sort -u | tr '\n' ' ')there without the file)"
