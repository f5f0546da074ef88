#!/usr/bin/env bash
# Many bad command lines of the programs in one mpirun launch: each rank runs every line's program in
# turn, and every line must end every rank with its expected exit code and leave exactly one
# "PROGRAM: error: " line over all ranks, within 30 s. The same checks as bad_usage.sh makes with one
# launch per line (1-2 s of mpirun start-up each, over 150 lines), for the lines refused before MPI
# starts; a line refused after MPI_Init cannot share a launch (a second MPI_Init in one rank's slot
# fails), so it fails here, naming itself, and belongs in its own bad_usage.sh test.
# usage: bad_inputs.sh BIN_DIR NP LINES_FILE
#   LINES_FILE: one command line a line, "EXPECTED_EXIT PROGRAM ARGS..." in shell quoting.
set -uo pipefail
bin_dir=$1 np=$2 lines_file=$3
scripts="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../scripts" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mapfile -t lines < <(grep -v '^[[:space:]]*\(#\|$\)' "$lines_file")
[ ${#lines[@]} -gt 0 ] || { echo "FAIL: no command lines in $lines_file"; exit 1; }
printf '%s\n' "${lines[@]}" > "$work/lines"
# shellcheck disable=SC2016  # expanded by each rank's shell
timeout $(( 30 * ${#lines[@]} + 60 )) "$scripts/mpirun-local.sh" -np "$np" bash -c '
  bin_dir=$1 work=$2
  rank=${OMPI_COMM_WORLD_RANK:-${RANK:-0}}
  index=0
  while IFS= read -r line; do
    index=$((index + 1))
    mkdir -p "$work/$index"
    eval "set -- $line"
    shift  # the expected exit code
    program=$1
    shift
    timeout 30 "$bin_dir/$program" "$@" >"$work/$index/stdout.$rank" 2>"$work/$index/stderr.$rank" </dev/null
    echo $? > "$work/$index/exit.$rank"
  done < "$work/lines"
  exit 0' rank "$bin_dir" "$work" >"$work/mpirun.out" 2>&1
launch=$?
failed_lines=0
index=0
for line in "${lines[@]}"; do
  index=$((index + 1))
  eval "set -- $line"
  expected=$1 program=$2
  problems=()
  for rank in $(seq 0 $((np - 1))); do
    if [ ! -f "$work/$index/exit.$rank" ]; then problems+=("rank $rank did not run it"); continue; fi
    code=$(cat "$work/$index/exit.$rank")
    [ "$code" = 124 ] && problems+=("rank $rank hung (30 s)")
    [ "$code" = "$expected" ] || [ "$code" = 124 ] || problems+=("rank $rank exited $code (want $expected)")
  done
  errors=$(cat "$work/$index"/stderr.* 2>/dev/null | grep -c "^$program: error: ")
  [ "$errors" -eq 1 ] || problems+=("$errors error lines (want 1)")
  if [ ${#problems[@]} -gt 0 ]; then
    echo "FAIL: line $index: $line: ${problems[*]}"
    cat "$work/$index"/stderr.* 2>/dev/null | sed 's/^/    /'
    failed_lines=$((failed_lines + 1))
  else
    echo "ok: line $index: $line -> exit $expected: $(cat "$work/$index"/stderr.* | grep -m1 "^$program: error: ")"
  fi
done
echo "$(( ${#lines[@]} - failed_lines )) of ${#lines[@]} lines held under one launch of $np ranks"
if [ "$launch" -ne 0 ]; then echo "FAIL: the launch itself exited $launch"; sed 's/^/    /' "$work/mpirun.out"; exit 1; fi
[ "$failed_lines" -eq 0 ]
