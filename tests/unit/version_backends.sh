#!/usr/bin/env bash
# --version names only backends that can run here. CUDA is hidden, so this holds on GPU machines
# too: mpi is listed; any other built backend appears only as "NAME: built, unusable here: WHY";
# nothing claims a backend this build does not have (the old "gloo: found"). gloo, where built,
# can always run (TCP over loopback at least), so it is listed as usable.
# usage: version_backends.sh BIN_DIR [HAVE_GLOO: ON|OFF]
set -uo pipefail
version=$(CUDA_VISIBLE_DEVICES= "$1/all_reduce_perf" --version) || { echo "FAIL: --version exited $?"; exit 1; }
echo "$version"
fail() { echo "FAIL: $1"; exit 1; }
have_gloo=${2:-OFF}
if [ "$have_gloo" = "ON" ]; then
  grep -Eq '\(backends: mpi gloo(;|\))' <<<"$version" || fail "mpi and gloo are not the usable backends listed"
else
  grep -Eq '\(backends: mpi(;|\))' <<<"$version" || fail "mpi is not the one usable backend listed"
  grep -q 'gloo' <<<"$version" && fail "claims gloo, which this build has no backend for"
fi
while read -r other; do
  grep -Eq "; $other: built, unusable here: .+" <<<"$version" || fail "names $other without saying why it cannot run"
done < <(grep -oE '(nccl)' <<<"$version" | sort -u)
echo "ok"
