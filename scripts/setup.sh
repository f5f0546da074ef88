#!/usr/bin/env bash
# Installs collbench's build and run dependencies from Debian packages.
# Idempotent: packages already present are skipped, so a second run is quick and offline.
# usage: scripts/setup.sh [--suite]
#   --suite  only what the main job needs to build and run the suite (scripts/run-suite.sh): no
#            test frameworks, no sanitizer compiler, no Slurm or network tools (about 2 minutes less
#            of apt on a fresh machine); the test command installs the rest
set -euo pipefail

case "${1:-}" in
  "" | --suite) ;;
  *) echo "setup: error: unknown argument '$1' (usage: scripts/setup.sh [--suite])" >&2; exit 2 ;;
esac

suite_packages=(
  build-essential cmake pkg-config
  openmpi-bin libopenmpi-dev        # the CPU data plane and every launcher
  nlohmann-json3-dev                 # report reading and writing
  libcli11-dev                       # the one command-line parser of every program
  libboost-dev                       # Boost.Math distributions (header-only) for compare/ab/history verdicts
  libhwloc-dev                       # host topology (cores, caches, NUMA) for reports and envcheck
  libopenblas-dev                    # CPU matmul
  libgloo-dev                        # optional CPU backend (detected, never required)
  libomp-dev                         # OpenMP for the CPU STREAM kernels
  gnuplot-nox                        # plots from collbench plot (optional at run time)
  jq                                 # scripts/backends.sh reads report figures
)
test_packages=(
  libgtest-dev libgmock-dev          # unit tests
  libbenchmark-dev                   # host-side micro-benchmarks
  clang-14 libclang-rt-14-dev        # libFuzzer and its sanitizer runtimes (scripts/fuzz.sh)
  iproute2 util-linux                # ip netns, tc, unshare for the simulated two-host cluster
  munge slurmctld slurmd slurm-client slurm-wlm-basic-plugins  # a local Slurm for the slurm tests (scripts/slurm/)
)
packages=("${suite_packages[@]}")
[ "${1:-}" = --suite ] || packages+=("${test_packages[@]}")

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages already installed"
  exit 0
fi

echo "setup: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    as_root=(sudo)
  else
    echo "setup: error: need root to install ${missing[*]}; re-run as root or with sudo" >&2
    exit 1
  fi
else
  as_root=()
fi

export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
# Packages' services (munged, slurmd) must not start at install: scripts/slurm/up.sh starts its own
# daemons with their own files, and nothing of the set-up should stay running. policy-rc.d is
# Debian's switch for that; put one in only for this install, and only where there is none.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
  "${as_root[@]}" sh -c "printf '#!/bin/sh\\nexit 101\\n' > $policy && chmod 755 $policy"
  trap '"${as_root[@]}" rm -f "$policy"' EXIT
fi
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
