#!/usr/bin/env bash
# scripts/gpu-bundle.sh and gpu-verify.sh --bundle on a CUDA build without a GPU: pack, unpack into
# a checkout elsewhere (CTest paths rewritten), unpack again after the libraries were removed (as a
# re-sync of the tree does) without touching the results, and a measure step run from the bundle
# (GPU_VERIFY_ASSUME_GPUS: collbench's collectives run on the CPU). Skips (77) without a CUDA build.
# usage: bundle.sh BUILD_DIR
set -uo pipefail
build=$(cd "$1" && pwd)
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source_root="$(cd "$here/../.." && pwd)"
[ -x "$build/bin/bare_cuda" ] || { echo "SKIP: $build is not a CUDA build (no bin/bare_cuda)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$source_root/scripts/gpu-bundle.sh" pack "$build" "$work/bundle" >"$work/pack.out" 2>&1 || fail "pack: $(tail -n 3 "$work/pack.out")"
[ -s "$work/bundle/bundle.tar.xz" ] || fail "no bundle.tar.xz"
# The bundle names the code it carries, as the programs recorded it at build time.
grep -q '^commit [0-9a-f]\{40\}, tree ' "$work/bundle/source.txt" || fail "source.txt: $(cat "$work/bundle/source.txt")"
"$source_root/scripts/gpu-bundle.sh" pack "$build" "$work/bundle" >/dev/null 2>"$work/err" && fail "packing into a full folder worked"
grep -q "is not empty" "$work/err" || fail "full folder: $(cat "$work/err")"

for bad in "pack $work/nowhere $work/x" "unpack $work/nowhere" "pack"; do
  # shellcheck disable=SC2086
  "$source_root/scripts/gpu-bundle.sh" $bad >/dev/null 2>"$work/err"
  code=$?
  [ "$code" = 2 ] && [ "$(wc -l < "$work/err")" = 1 ] || fail "'$bad': exit $code, stderr: $(cat "$work/err")"
done

# A checkout elsewhere: the scripts, an nccl-tests source stand-in, the bundle.
checkout="$work/checkout"
mkdir -p "$checkout/nccl-tests/src" && touch "$checkout/nccl-tests/src/Makefile"
cp -r "$source_root/scripts" "$source_root/tests" "$checkout/"
mv "$work/bundle" "$checkout/gpu-carry"
cd "$checkout" || fail "no checkout"
line=$(scripts/gpu-bundle.sh unpack gpu-carry) || fail "unpack"
case $line in "export LD_LIBRARY_PATH=$checkout/gpu-carry/lib"*) ;; *) fail "unpack printed '$line'" ;; esac
[ -x build-gpu/bin/all_reduce_perf ] && [ -f build-gpu/.from-bundle ] || fail "no build-gpu from the bundle"
! grep -rqF "$build" build-gpu --include='*.cmake' || fail "CTest files still name $build"
listed=$(ctest --test-dir build-gpu -N -L '^gpu$')  # whole, not piped into grep -q (pipefail)
grep -q "gpu.all_reduce" <<<"$listed" || fail "ctest lists no gpu test in the unpacked build"

# Again, after a re-sync removed the libraries: they come back, the results stay.
mkdir -p build-gpu/verify && echo kept > build-gpu/verify/earlier
rm -rf gpu-carry/lib
scripts/gpu-bundle.sh unpack gpu-carry >/dev/null || fail "second unpack"
[ -d gpu-carry/lib ] && [ "$(cat build-gpu/verify/earlier)" = kept ] || fail "second unpack: libraries missing or results lost"
rm -rf build-gpu/verify

# gpu-verify.sh --bundle: a short measure step through the bundle's programs and libraries. This
# build has no nccl-tests; the step needs none, and a stand-in satisfies the build check.
rm -rf gpu-carry/lib
if [ ! -x build-gpu/nccl-tests/all_reduce_perf ]; then
  mkdir -p build-gpu/nccl-tests
  printf '#!/bin/sh\necho "# nccl-tests version 0 (a stand-in of tests/gpuverify/bundle.sh)"\n' > build-gpu/nccl-tests/all_reduce_perf
  chmod +x build-gpu/nccl-tests/all_reduce_perf
fi
GPU_VERIFY_ASSUME_GPUS=1 scripts/gpu-verify.sh --nccl-tests nccl-tests --bundle gpu-carry --out "$work/out" \
  --phase measure --steps tflag --budget 60 >"$work/verify.out" 2>&1
grep -q $'^measure\ttflag\tok' build-gpu/verify/steps.tsv || fail "tflag through the bundle: $(cat build-gpu/verify/steps.tsv; tail -n 5 "$work/verify.out")"
[ -f build-gpu/verify/versions.txt ] && [ -d gpu-carry/lib ] || fail "no versions.txt, or the libraries were not restored"
[ "$(ls "$work/out" | sort | tr '\n' ' ')" = "gpu-verify.tar.gz summary.md " ] || fail "OUT holds: $(ls "$work/out")"
echo "ok: packed ($(du -h "$checkout/gpu-carry/bundle.tar.xz" | cut -f1)), unpacked twice, measured through the bundle"
