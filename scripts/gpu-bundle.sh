#!/usr/bin/env bash
# Packs a CUDA build made here for a GPU machine that cannot build collbench itself (its build
# dependencies, Gloo at least, missing there and nothing to install them from), and unpacks it there.
#
# usage: scripts/gpu-bundle.sh pack BUILD_DIR DEST     (here, after building BUILD_DIR with CUDA)
#        scripts/gpu-bundle.sh unpack DEST              (there, from the repository root)
#
# pack writes DEST/bundle.tar.xz (about 12 MB for sm_90) and DEST/source.txt (the collbench version,
# commit and tree state the programs were built from): BUILD_DIR's programs (stripped), its
# nccl-tests build (BUILD_DIR/nccl-tests), the CTest files (so `ctest -L gpu` runs there), and every
# shared library those load except the C and C++ runtimes, the CUDA driver and what the GPU
# machine's own CUDA and NCCL provide (libcudart, cuBLAS, NCCL: both tools then load the same NCCL
# there). unpack puts the build at ./build-gpu, rewrites the CTest files' absolute paths to this
# checkout, and prints the LD_LIBRARY_PATH to export: the bundle's libraries, then the NCCL and
# CUDA libraries it finds (a pip NCCL included). Unpacking again keeps ./build-gpu (and the
# results in it) and restores only missing libraries. Where that machine has no mpirun, the ranks
# start without MPI (scripts/launch-local.sh); docs/gpu-verify.md says more.
set -euo pipefail
program=gpu-bundle.sh
fail() { echo "$program: error: $1" >&2; exit 2; }
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

pack() {
  local build dest lib
  build="$(cd "$1" 2>/dev/null && pwd)" || fail "no build folder $1"
  dest=$2
  [ -x "$build/bin/all_reduce_perf" ] && [ -x "$build/bin/bare_cuda" ] || fail "$build is not a CUDA build (no bin/bare_cuda)"
  [ ! -e "$dest" ] || [ -z "$(ls -A "$dest")" ] || fail "$dest is not empty"
  mkdir -p "$dest"
  local bundle_dir="$(cd "$dest" && pwd)"
  staging=$(mktemp -d)
  trap 'rm -rf "$staging"' EXIT
  dest=$staging
  mkdir -p "$dest/build-gpu/bin" "$dest/lib"
  # The programs and the tools the gpu tests call; the unit-test binaries stay behind.
  local file
  for file in "$build"/bin/*; do
    [ -f "$file" ] && [ -x "$file" ] || continue
    case $(basename "$file") in *_unit_tests|*_tests) continue ;; esac
    strip -o "$dest/build-gpu/bin/$(basename "$file")" "$file" 2>/dev/null || cp "$file" "$dest/build-gpu/bin/"
  done
  # collbench's NCCL tuner plugin (src/tuner_plugin/), which NCCL dlopens by path: the lease's
  # tuner_plugin step loads it from build-gpu/lib.
  if [ -f "$build/lib/libnccl-tuner-collbench.so" ]; then
    mkdir -p "$dest/build-gpu/lib"
    strip -o "$dest/build-gpu/lib/libnccl-tuner-collbench.so" "$build/lib/libnccl-tuner-collbench.so" 2>/dev/null ||
      cp "$build/lib/libnccl-tuner-collbench.so" "$dest/build-gpu/lib/"
  fi
  if [ -d "$build/nccl-tests" ]; then
    mkdir -p "$dest/build-gpu/nccl-tests"
    for file in "$build"/nccl-tests/*_perf; do strip -o "$dest/build-gpu/nccl-tests/$(basename "$file")" "$file"; done
  fi
  (cd "$build" && find . \( -name CTestTestfile.cmake -o -name '*_include.cmake' -o -name '*_tests.cmake' \) -print0 |
    xargs -0 -I{} cp --parents {} "$dest/build-gpu/")
  # jq: the gpu tests read reports with it, and a GPU machine may not have it.
  command -v jq >/dev/null 2>&1 && strip -o "$dest/build-gpu/bin/jq" "$(command -v jq)"
  # Shared libraries, except those the GPU machine must bring itself.
  for lib in $(ldd "$dest"/build-gpu/bin/* "$dest"/build-gpu/nccl-tests/* 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u); do
    case $(basename "$lib") in
      libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*|libstdc++*|libgcc_s*|libcuda.so*|libnvidia*|libnccl*|libcudart*|libcublas*) ;;
      *) cp -L "$lib" "$dest/lib/" ;;
    esac
  done
  echo "$root" > "$bundle_dir/source-root.txt"
  echo "$build" > "$bundle_dir/build-root.txt"
  # The code the programs were built from (recorded at build time), readable without unpacking.
  "$build/bin/all_reduce_perf" --version 2>/dev/null | sed -n '1s/ (.*//p; s/^source: //p' > "$bundle_dir/source.txt" || true
  # GPU_BUNDLE_XZ_LEVEL (default 6, the smallest carry): the bundle test packs at 0, which holds the
  # same files in a few seconds instead of half a minute of CI's 2 cores.
  local level="${GPU_BUNDLE_XZ_LEVEL:-6}"
  [[ $level =~ ^[0-9]$ ]] || fail "GPU_BUNDLE_XZ_LEVEL '$level' is not an xz level 0-9"
  tar -cf - -C "$dest" build-gpu lib | xz -T0 "-$level" > "$bundle_dir/bundle.tar.xz"
  echo "$program: packed $(du -sh "$dest" | cut -f1) into $bundle_dir/bundle.tar.xz ($(du -h "$bundle_dir/bundle.tar.xz" | cut -f1));" \
    "$(paste -sd' ' "$bundle_dir/source.txt")"
}

unpack() {
  local dest from_root from_build nccl_lib cuda_lib marker
  dest="$(cd "$1" 2>/dev/null && pwd)" || fail "no bundle $1"
  [ -f "$dest/source-root.txt" ] && [ -f "$dest/bundle.tar.xz" ] || fail "$dest is not a bundle (no source-root.txt or bundle.tar.xz)"
  from_root=$(cat "$dest/source-root.txt") from_build=$(cat "$dest/build-root.txt")
  marker="$root/build-gpu/.from-bundle"
  [ ! -e "$root/build-gpu" ] || [ -f "$marker" ] || fail "$root/build-gpu exists and did not come from a bundle"
  # Again on the same machine (a later command of one lease): the build and its verify/ results
  # stay; only what a re-sync of the tree may have removed (the libraries) comes back.
  if [ ! -d "$dest/lib" ] || [ ! -e "$root/build-gpu" ]; then
    local staging="$dest/unpacking"
    rm -rf "$staging" && mkdir -p "$staging"
    # xz where it is installed, Python's tarfile where not.
    if command -v xz >/dev/null 2>&1; then tar -xJf "$dest/bundle.tar.xz" -C "$staging"
    else python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$dest/bundle.tar.xz" "$staging"; fi
    [ -d "$dest/lib" ] || mv "$staging/lib" "$dest/lib"
    if [ ! -e "$root/build-gpu" ]; then
      mv "$staging/build-gpu" "$root/build-gpu"
      find "$root/build-gpu" -name '*.cmake' -print0 |
        xargs -0 sed -i -e "s#$from_build#$root/build-gpu#g" -e "s#$from_root#$root#g"
      echo "$dest" > "$marker"
    fi
    rm -rf "$staging"
  fi
  # NCCL: a system one where the loader finds it, else a pip one (nvidia-nccl-cu13, as PyTorch
  # brings); CUDA's runtime and cuBLAS: the toolkit's, then pip's.
  local pip_nvidia="" found
  pip_nvidia=$(python3 -c 'import nvidia; print(list(nvidia.__path__)[0])' 2>/dev/null || true)
  nccl_lib=""
  if ! ldconfig -p 2>/dev/null | grep -q 'libnccl.so.2 ' && [ -n "$pip_nvidia" ]; then
    found=$(find "$pip_nvidia" -name 'libnccl.so.2' 2>/dev/null | head -1)
    [ -n "$found" ] && nccl_lib=$(dirname "$found")
  fi
  cuda_lib=""
  for dir in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
    [ -e "$dir/libcublasLt.so.13" ] && cuda_lib+="${cuda_lib:+:}$dir"
  done
  if [ -z "$cuda_lib" ] && [ -n "$pip_nvidia" ]; then
    for found in $(find "$pip_nvidia" \( -name 'libcublasLt.so.13' -o -name 'libcudart.so.13' \) 2>/dev/null); do
      cuda_lib+="${cuda_lib:+:}$(dirname "$found")"
    done
  fi
  echo "export LD_LIBRARY_PATH=$dest/lib${nccl_lib:+:$nccl_lib}${cuda_lib:+:$cuda_lib}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
}

case ${1:-} in
  pack) [ $# = 3 ] || fail "usage: $program pack BUILD_DIR DEST"; pack "$2" "$3" ;;
  unpack) [ $# = 2 ] || fail "usage: $program unpack DEST"; unpack "$2" ;;
  *) fail "usage: $program pack BUILD_DIR DEST | unpack DEST" ;;
esac
