#!/usr/bin/env bash
# Recomputes every decision and verification table of this folder from the raw reports in
# reports.tar.xz, running nothing: collbench tune resumes from complete run pairs, and an mpirun
# that refuses to start is put first on PATH so that a missing run fails instead of measuring.
# Compares each table's rows, verdict and range lines; prints "same" or the difference; exit 1 on
# any difference.
# usage: results/tune/recompute.sh [FOLDER]   (from the repository root, after scripts/build.sh;
# FOLDER: results/tune, or results/tune/hosts, whose runs were started by the launcher in its file
# `launcher`, NP standing for the rank count)
set -uo pipefail
here=$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")}" && pwd)
root=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/shim"
for launcher in mpirun srun; do
  printf '#!/bin/sh\necho "recompute.sh: a run was missing; nothing is measured here" >&2\nexit 99\n' >"$work/shim/$launcher"
  chmod +x "$work/shim/$launcher"
done
tar -C "$work" -xJf "$here/reports.tar.xz"
# The runs were made from the repository root with build/bin/... and --out reports/...; the same
# relative commands must resolve here for tune to recognise its comparisons. tune --verify passes
# the rules file to Open MPI by its absolute path, which the archive holds relative to its folder.
ln -s "$root/build" "$work/build"
find "$work/reports" -name ab.manifest.json -path '*-verify/*' -exec sed -i "s#dynamic_rules_filename=reports/#dynamic_rules_filename=$work/reports/#" {} +
status=0
results() { grep -e '^|' -e '^> verdict' -e '^> range' "$1"; }
for table in "$here"/*-np?.decision.md; do
  name=$(basename "$table" .decision.md)
  np=${name##*-np} collective=${name%-np*}
  benchmark=("build/bin/${collective}_perf" -b 8 -e 16M -f 4 --placement out -n 20 -w 5)
  candidates=all launch=()
  [ -f "$here/launcher" ] && launch=(--launcher "$(sed "s/NP/$np/" "$here/launcher")")
  # all_gather's two_proc (6) could not run at 4 ranks (Open MPI refused; the decision table's
  # "skipped" line and reports/all_gather-np4/mpi-6 keep why): there are no runs of it to replay.
  [ "$name" = all_gather-np4 ] && candidates=1,2,3,4,5
  (cd "$work" && PATH=$work/shim:$PATH "$root/build/bin/collbench" tune "${launch[@]}" --np "$np" --mpi-algorithms "$candidates" --runs 10 \
    --max-runs 12 --out "reports/$name" --format markdown -- "${benchmark[@]}" >"$name.decision.md" 2>"$name.decision.err")
  (cd "$work" && PATH=$work/shim:$PATH "$root/build/bin/collbench" tune --verify "reports/$name/ompi-rules.conf" "${launch[@]}" --np "$np" \
    --runs 10 --max-runs 12 --out "reports/$name-verify" --format markdown -- "${benchmark[@]}" >"$name.verify.md" 2>"$name.verify.err")
  for kind in decision verify; do
    if diff <(results "$here/$name.$kind.md") <(results "$work/$name.$kind.md") >"$work/diff"; then
      echo "$name.$kind.md: same ($(results "$here/$name.$kind.md" | wc -l) lines)"
    else
      echo "$name.$kind.md: DIFFERS"; cat "$work/diff"; tail -3 "$work/$name.$kind.err"; status=1
    fi
  done
done
exit $status
