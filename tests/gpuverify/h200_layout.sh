#!/usr/bin/env bash
# scripts/gpu-verify.sh on a fake of the H200 image, without a GPU: nvidia-smi answers as that
# machine's does (one NVIDIA H200, driver 580), the system has no NCCL (ldconfig lists none) and
# the pip wheel nvidia-nccl-cu13 brings one (a stand-in library answering ncclGetVersion 22807),
# and there is no MPI (COLLBENCH_LOCAL_LAUNCHER=env). This build's CPU programs stand in for the
# GPU build, so the collectives run on the CPU. Checked: the preflight says what it found, the
# test phase runs --collectives in their order with one rank as a plain process, OUT holds every
# finished step (and every finished repetition of the sweep) even when the command is killed
# mid-phase, and a missing NCCL or a missing library
# stops it at once with one line and exit 2.
# usage: h200_layout.sh BUILD_DIR
set -uo pipefail
real_build=$(cd "$1" && pwd)
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
script="$here/../../scripts/gpu-verify.sh"
[ -x "$real_build/bin/all_gather_perf" ] || { echo "SKIP: no programs in $real_build/bin"; exit 77; }
command -v gcc >/dev/null 2>&1 || { echo "SKIP: no gcc to build the stand-in NCCL"; exit 77; }
work=$(mktemp -d)
pgid=""
trap '[ -n "$pgid" ] && kill -KILL -- "-$pgid" 2>/dev/null; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# The machine: nvidia-smi, an ldconfig that lists no NCCL, and a pip wheel's NCCL.
mkdir -p "$work/fakebin" "$work/site/nvidia/nccl/lib" "$work/nccl-tests/src"
touch "$work/nccl-tests/src/Makefile"
cat > "$work/fakebin/nvidia-smi" <<'SMI'
#!/bin/sh
case "$*" in
  -L) echo "GPU 0: NVIDIA H200 (UUID: GPU-00000000-fake)" ;;
  *driver_version*--format*) echo "580.159.04" ;;
  *compute_cap*--format*) case "$*" in *index,name*) echo "0, NVIDIA H200, 580.159.04, 9.0, 143771 MiB, 00000000:00:1E.0" ;; *) echo "9.0" ;; esac ;;
  *) echo "| NVIDIA-SMI 580.159.04   Driver Version: 580.159.04   CUDA Version: 13.0 |" ;;
esac
SMI
printf '#!/bin/sh\nexit 0\n' > "$work/fakebin/ldconfig"
chmod +x "$work/fakebin/nvidia-smi" "$work/fakebin/ldconfig"
printf 'int ncclGetVersion(int* version) { *version = 22807; return 0; }\n' > "$work/nccl.c"
gcc -shared -fPIC -o "$work/site/nvidia/nccl/lib/libnccl.so.2" "$work/nccl.c" || fail "cannot build the stand-in NCCL"

# The build a bundle would bring: this build's programs, stand-ins for the CUDA-only ones.
build="$work/build-gpu"
mkdir -p "$build/bin" "$build/nccl-tests"
for program in "$real_build"/bin/*; do ln -s "$program" "$build/bin/"; done
# The NCCL tuner plugin a CUDA build makes, where this build has it (the tuner_plugin step's).
[ -f "$real_build/lib/libnccl-tuner-collbench.so" ] && mkdir -p "$build/lib" && ln -s "$real_build/lib/libnccl-tuner-collbench.so" "$build/lib/"
# The program the preflight asks the loader about, behind a script: a bundle's programs find no
# NCCL in the H200 image's system, while this build's may find this machine's.
rm "$build/bin/all_reduce_perf"
printf '#!/bin/sh
exec "%s" "$@"
' "$real_build/bin/all_reduce_perf" > "$build/bin/all_reduce_perf"
chmod +x "$build/bin/all_reduce_perf"
for stand_in in bin/bare_cuda nccl-tests/all_reduce_perf; do
  printf '#!/bin/sh\necho "# nccl-tests version 0 (a stand-in of tests/gpuverify/h200_layout.sh)"\nexit 1\n' > "$build/$stand_in"
  chmod +x "$build/$stand_in"
done

# The fake machine's environment, and gpu-verify.sh's arguments for its test phase.
machine=(env PATH="$work/fakebin:$PATH" PYTHONPATH="$work/site" COLLBENCH_LOCAL_LAUNCHER=env BUILD_DIR="$build")
# NVML as an H200 SXM host answers it (the tests' stand-in, tests/compute/fake_nvml.cpp), where this
# build made it: the reports' inventory, which the explain step shows beside the entry.
fake_nvml="$real_build/test-lib/libcollbench_fake_nvml_sxm.so"
[ -f "$fake_nvml" ] && machine+=(COLLBENCH_NVML_LIBRARY="$fake_nvml")
test_phase=(bash "$script" --nccl-tests "$work/nccl-tests" --phase test --test-sizes 8,64,8)

# kill_once_packed ARCHIVE ENTRY: waits (120 s at most) until the command started in the background
# as process group $pgid has packed ENTRY into ARCHIVE, then kills the whole group (SIGKILL, as a
# lease's limit would) and waits for it.
kill_once_packed() {
  local archive=$1 entry=$2
  for _ in $(seq 1 600); do
    tar -tzf "$archive" 2>/dev/null | grep -qxF "$entry" && break
    kill -0 "$pgid" 2>/dev/null || break
    sleep 0.2
  done
  kill -KILL -- "-$pgid" 2>/dev/null
  wait "$pgid" 2>/dev/null
  pgid=""
}

# 1. The test phase, cut off after its first step as a lease's limit would (SIGKILL, no cleanup).
# setsid in this shell's own child (not a group leader) makes no new process: its pid leads the
# script's process group, so one kill reaches the script and every run it started.
# Each step pauses 10 s once packed, so the kill lands after all_gather however fast the steps run
# (on a quiet machine all three took less than one 0.2 s poll).
setsid "${machine[@]}" GPU_VERIFY_PAUSE_AFTER_STEP=10 "${test_phase[@]}" --out "$work/out1" --collectives all_gather,broadcast,alltoall --budget 120 \
  > "$work/run1.out" 2>&1 &
pgid=$!
kill_once_packed "$work/out1/gpu-verify.tar.gz" 'verify/test/all_gather.json'
grep -q 'ctest -L gpu' "$build/verify/steps.tsv" && fail "the command was not stopped after its first step"
grep -q 'preflight: driver: 580.159.04' "$work/run1.out" || fail "no driver line: $(head -n 20 "$work/run1.out")"
grep -q "preflight: nccl: $work/site/nvidia/nccl/lib/libnccl.so.2 (the pip wheel's (nvidia-nccl)), version 2.28.7 (22807)" "$work/run1.out" ||
  fail "the pip wheel's NCCL not found: $(grep preflight "$work/run1.out")"
grep -q 'preflight: mpi: none' "$work/run1.out" || fail "no 'mpi: none' line"
mkdir -p "$work/unpacked"
tar -xzf "$work/out1/gpu-verify.tar.gz" -C "$work/unpacked" || fail "the archive left by the killed command is not whole"
[ -s "$work/unpacked/verify/test/all_gather.json" ] || fail "the finished all_gather step is not in OUT: $(tar -tzf "$work/out1/gpu-verify.tar.gz")"
grep -q $'^test\tall_gather -d all\tok' "$work/unpacked/verify/steps.tsv" || fail "all_gather: $(cat "$work/unpacked/verify/steps.tsv")"
grep -q '^## What the machine has (preflight)' "$work/out1/summary.md" || fail "summary.md has no preflight section"
# One rank is a plain process with the one-rank variables, not a launcher.
grep -q '^\$ env RANK=0 LOCAL_RANK=0 WORLD_SIZE=1 ' "$build/verify/logs/test-all_gather.log" ||
  fail "all_gather did not start as a plain process: $(head -n 1 "$build/verify/logs/test-all_gather.log")"
rm -rf "$build/verify"

# 2. The whole phase: the collectives in --collectives' order, then ctest -L gpu and comm_init_perf.
"${machine[@]}" "${test_phase[@]}" --out "$work/out2" --collectives broadcast,all_gather --budget 120 > "$work/run2.out" 2>&1
steps=$(cut -f2,3 "$build/verify/steps.tsv" | grep -v '^start' | cut -f1 | tr '\n' ',')
[ "$steps" = "broadcast -d all,all_gather -d all,ctest -L gpu,comm_init_perf nccl," ] || fail "steps in the wrong order: $steps"
grep -q $'^test\tbroadcast -d all\tok' "$build/verify/steps.tsv" || fail "broadcast: $(cat "$build/verify/steps.tsv")"
rm -rf "$build/verify"

# 3. The sweep, cut off after its first repetition: that repetition, every collective of it, is in
# OUT (nccl-tests is a stand-in that fails here; collbench's runs are real).
setsid "${machine[@]}" GPU_VERIFY_PAUSE_AFTER_STEP=10 bash "$script" --nccl-tests "$work/nccl-tests" --phase measure --quick --steps collectives \
  --sizes 8,64,8 --repetitions 3 --budget 120 --out "$work/out5" > "$work/run5.out" 2>&1 &
pgid=$!
kill_once_packed "$work/out5/gpu-verify.tar.gz" 'verify/collectives/plain/r1/collbench-all_gather.json'
rm -rf "$work/unpacked" && mkdir -p "$work/unpacked"
tar -xzf "$work/out5/gpu-verify.tar.gz" -C "$work/unpacked" || fail "the sweep's archive is not whole"
for collective in all_reduce all_gather; do
  [ -s "$work/unpacked/verify/collectives/plain/r1/collbench-$collective.json" ] ||
    fail "repetition 1's $collective is not in OUT: $(tar -tzf "$work/out5/gpu-verify.tar.gz" | grep collectives)"
done
grep -q $'^measure\tplain' "$build/verify/steps.tsv" && fail "the sweep was not stopped before its end"
rm -rf "$build/verify"

# 4. This wave's optional steps (issue 66), after a test phase whose report explain reads: one GPU
# runs explain and replay, two add split and tuner_plugin. A step this build lacks is skipped with
# its reason, never failed, so a lease's summary tells a missing feature from a broken one.
"${machine[@]}" "${test_phase[@]}" --out "$work/out6" --collectives all_reduce --budget 120 > "$work/run6.out" 2>&1
for gpus in 1 2; do
  "${machine[@]}" GPU_VERIFY_ASSUME_GPUS=$gpus bash "$script" --nccl-tests "$work/nccl-tests" --phase measure \
    --steps explain,replay,split,tuner_plugin --budget 120 --out "$work/out7-$gpus" > "$work/run7-$gpus.out" 2>&1
  for step in explain replay split tuner_plugin; do
    line=$(grep -P "^measure\t$step\t" "$build/verify/steps.tsv" | tail -n 1 | cut -f3,5)
    case $step:$gpus in
      explain:*) has=$("$real_build/bin/collbench" explain --help > /dev/null 2>&1 && echo yes) want="this build has no collbench explain" ;;
      replay:*) has=$([ -x "$real_build/bin/replay_perf" ] && echo yes) want="this build has no replay_perf" ;;
      split:1|tuner_plugin:1) has="" want="one GPU" ;;
      split:2) has=$("$real_build/bin/all_reduce_perf" --help 2>/dev/null | grep -q -- --split && echo yes) want="has no --split" ;;
      tuner_plugin:2) has=$([ -f "$real_build/lib/libnccl-tuner-collbench.so" ] && echo yes)
                      want="no collbench NCCL tuner plugin" ;;
    esac
    if [ -n "$has" ]; then
      # Runs here on the CPU, except the plugin's tune, which needs NCCL's algorithms: ran, not skipped.
      case $line in ok*) ;; FAILED*) [ "$step" = tuner_plugin ] || fail "$step at $gpus GPU(s) failed: $line" ;;
                    *) fail "$step at $gpus GPU(s) did not run: $line" ;; esac
    else
      [[ $line == skipped*"$want"* ]] || fail "$step at $gpus GPU(s): want skipped ($want), got '$line'"
    fi
  done
  # The explain step's note: the host's GPUs and links by NVML beside the entry the reports got.
  if [ -f "$fake_nvml" ] && [ -n "$("$real_build/bin/collbench" explain --help 2>/dev/null)" ]; then
    note=$(grep -P "^measure\texplain\t" "$build/verify/steps.tsv" | tail -n 1 | cut -f5)
    [[ $note == *"NVML: 8x NVIDIA H200 (9.0): 18 of 18 NVLinks up (NVML version code 6), 18 to an NVSwitch; PCIe gen 5 x16"*"; expected: intra-host"* ]] ||
      fail "the explain step's note lacks NVML's inventory beside the entry: '$note'"
    grep -q "^- GPUs of the host: NVML: 8x NVIDIA H200 (9.0): 18 of 18 NVLinks up" "$work/out7-$gpus/summary.md" ||
      fail "the summary has no expected-peaks section with NVML's inventory: $(grep -A3 'Expected peaks' "$work/out7-$gpus/summary.md")"
  fi
  tar -tzf "$work/out7-$gpus/gpu-verify.tar.gz" > "$work/list7" || fail "no archive: $(tail -n 3 "$work/run7-$gpus.out")"
  grep -qx "verify/steps.tsv" "$work/list7" || fail "the optional steps' archive lacks steps.tsv: $(head -n 5 "$work/list7")"
done
rm -rf "$build/verify"

# 5. Missing pieces stop it at once: one line on stderr, exit 2.
expect_stop() {
  local pattern=$1; shift
  "$@" > "$work/stdout" 2> "$work/stderr"
  local code=$?
  [ "$code" = 2 ] && [ "$(wc -l < "$work/stderr")" = 1 ] && grep -q "^gpu-verify.sh: error: missing $pattern" "$work/stderr" ||
    fail "want exit 2 and one line 'missing $pattern', got exit $code: $(cat "$work/stderr")"
  echo "ok: $(cat "$work/stderr")"
}
expect_stop "an NCCL library" env PATH="$work/fakebin:$PATH" COLLBENCH_LOCAL_LAUNCHER=env BUILD_DIR="$build" \
  bash "$script" --nccl-tests "$work/nccl-tests" --out "$work/out3" --phase test
printf 'int gone(void) { return 0; }\n' > "$work/gone.c"
printf 'int gone(void);\nint main(void) { return gone(); }\n' > "$work/main.c"
gcc -shared -fPIC -o "$work/libgone.so" "$work/gone.c" && gcc -o "$work/needs_gone" "$work/main.c" -L"$work" -lgone ||
  fail "cannot build the program with a missing library"
rm -f "$work/libgone.so" "$build/bin/all_reduce_perf"
cp "$work/needs_gone" "$build/bin/all_reduce_perf"
expect_stop "libgone.so, which .*all_reduce_perf needs" env PATH="$work/fakebin:$PATH" PYTHONPATH="$work/site" \
  COLLBENCH_LOCAL_LAUNCHER=env BUILD_DIR="$build" bash "$script" --nccl-tests "$work/nccl-tests" --out "$work/out4" --phase test
echo "ok: preflight on the H200 layout, steps in order and packed as each ends, plain one-rank runs, optional steps run or skipped with their reason, one-line stops"
