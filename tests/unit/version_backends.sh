#!/usr/bin/env bash
# --version names only backends that can run here. CUDA is hidden, so this holds on GPU machines
# too: mpi is listed; any other built backend appears only as "NAME: built, unusable here: WHY";
# nothing claims a backend this build does not have (the old "gloo: found").
# usage: version_backends.sh BIN_DIR
set -uo pipefail
version=$(CUDA_VISIBLE_DEVICES= "$1/all_reduce_perf" --version) || { echo "FAIL: --version exited $?"; exit 1; }
echo "$version"
fail() { echo "FAIL: $1"; exit 1; }
grep -Eq '\(backends: mpi(;|\))' <<<"$version" || fail "mpi is not the one usable backend listed"
grep -q 'gloo' <<<"$version" && fail "claims gloo, which this build has no backend for"
while read -r other; do
  grep -Eq "; $other: built, unusable here: .+" <<<"$version" || fail "names $other without saying why it cannot run"
done < <(grep -oE '(nccl)' <<<"$version" | sort -u)
echo "ok"
