#!/usr/bin/env python3
"""Writes verify/, a hand-made gpu-verify state folder for the summary maker's test (committed;
rerun only to change it). NOT MEASURED: every figure is a round number chosen so the expected
ratios follow by hand; the card is called FIXTURE. The nccl-tests tables follow the layout of
nccl-tests 2.19's src/util.cu (size count type redop root, then time algbw busbw #wrong out of
place and in place, "N/A" for #wrong under -c 0).

Expected, all_reduce plain (collbench / nccl-tests, out of place):
  8 B: ratios 1.00, 1.01, 0.99 -> median 1.000 (within 0.98-1.02)
  1 KiB: 1.10 each repetition -> 1.100, marked OUT
  1 MiB: 1.01 each -> 1.010 (within)
  in place equals out of place except 1 MiB in place: 0.95 -> OUT
Test phase: all_reduce #wrong 0, reduce #wrong 3 (marked).
"""
import json
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "verify")


def stats(mean):
    return {"min": mean, "p50": mean, "mean": mean, "p95": mean, "p99": mean, "max": mean, "stdev": 0.0}


def context(program, world_size=1):
    return {"argv": [program], "start_time": "2025-01-01T00:00:00Z", "end_time": "2025-01-01T00:00:01Z", "world_size": world_size,
            "hosts": ["fixture"], "ranks": [], "backend": "nccl", "versions": {"collbench": "0.1.0"}, "env": {},
            "options": {"iterations": 20, "time_aggregation": "mean"}, "tags": {}}


def collective_row(size, placement, time_us, wrong=None):
    return {"algbw_gbps": size / time_us / 1e3, "algorithm": "default", "backend": "nccl", "bus_bandwidth_factor": 2.0,
            "busbw_gbps": None, "bytes": size, "check_iterations": 0 if wrong is None else 1, "count": size // 4, "cycle": 1,
            "dtype": "float32", "iterations": 20, "op": "sum", "placement": placement, "requested_bytes": size, "root": -1,
            "time_aggregation": "mean", "time_us": stats(time_us), "warmup_iterations": 5, "wrong": wrong}


def collective_report(benchmark, rows, world_size=1):
    return {"schema_version": "1.0", "benchmark": benchmark, "status": "complete", "context": context(benchmark + "_perf", world_size),
            "platform": [], "warnings": [], "results": rows, "skipped": [], "summary": {}}


def write(path, content):
    path = os.path.join(ROOT, path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        if isinstance(content, str):
            f.write(content)
        else:
            json.dump(content, f, indent=1, sort_keys=True)
            f.write("\n")


def nccl_tests_table(rows):
    lines = ["# nccl-tests version 2.19.6 nccl-headers=22800 nccl-library=22800",
             "# Collective test starting: all_reduce_perf",
             "# nThread 1 nGpus 1 minBytes 8 maxBytes 1048576 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 0 graph: 0",
             "#",
             "# Using devices",
             "#  Rank  0 Group  0 Pid   4242 on    fixture device  0 [0000:00:00] FIXTURE",
             "#",
             "#                                                              out-of-place                       in-place          ",
             "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong ",
             "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)         "]
    for size, out_us, in_us in rows:
        lines.append("%12d  %12d  %8s  %6s  %6d  %7.2f  %6.2f  %6.2f  %6s  %7.2f  %6.2f  %6.2f  %6s" % (
            size, size // 4, "float", "sum", -1, out_us, size / out_us / 1e3, 0.0, "N/A", in_us, size / in_us / 1e3, 0.0, "N/A"))
    lines += ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 0 ", "#", "# Collective test concluded: all_reduce_perf", ""]
    return "\n".join(lines)


def main():
    shutil.rmtree(ROOT, ignore_errors=True)
    write("versions.txt", "date: 2025-01-01T00:00:00Z\n"
          "gpu: 0, FIXTURE (hand-made test data; not a measurement), 0.0, 9.0, 0 MiB, 00000000:00:00.0\n"
          "cuda: 13.0, V13.0.88\nnccl (ncclGetVersion): 22800\n"
          "collbench: 0.1.0+g0123456-dirty; commit 0123456789abcdef0123456789abcdef01234567, "
          "tree modified (diff sha256 00112233aabbccdd)\n")
    write("preflight.txt", "driver: 580.159.04\ncuda: 13.0 (driver's)\n"
          "nccl: /fixture/nvidia/nccl/lib/libnccl.so.2 (the pip wheel's (nvidia-nccl)), version 2.28.7 (22807)\n"
          "mpi: none; one rank runs as a plain process, several through scripts/launch-local.sh\n")
    write("steps.tsv", "build\tcollbench\tok\t1\tsm_90\ntest\tall_reduce -d all\tok\t1\t\n"
          "test\treduce -d all\tWRONG\t1\twrong results (exit 3)\nmeasure\tplain\tok\t1\t6 runs, 0 failed\n")
    # Run wall times: nccl-tests 2, 3, 4 s, collbench 8, 6, 10 s (medians 3 and 8: 2.7); one failed
    # collbench run, left out of the medians.
    write("runs.tsv", "".join(f"plain\t{rep}\tall_reduce\t{tool}\t{wall}\tok\n" for rep, tool, wall in
                              [(1, "nccl-tests", 2), (1, "collbench", 8), (2, "collbench", 6), (2, "nccl-tests", 3),
                               (3, "nccl-tests", 4), (3, "collbench", 10)]) + "plain\t3\tall_reduce\tcollbench\t240\tFAILED\n")
    write("test/all_reduce.json", collective_report("all_reduce", [collective_row(8, "out", 10.0, 0), collective_row(8, "in", 10.0, 0)]))
    write("test/reduce.json", collective_report("reduce", [collective_row(8, "out", 10.0, 3), collective_row(8, "in", 10.0, 0)]))
    nccl = [(8, 10.0, 10.0), (1024, 20.0, 20.0), (1048576, 100.0, 100.0)]
    ours = {1: {8: 10.0}, 2: {8: 10.1}, 3: {8: 9.9}}
    for rep in (1, 2, 3):
        write(f"collectives/plain/r{rep}/nccl-tests-all_reduce.txt", nccl_tests_table(nccl))
        rows = []
        for size, out_us, in_us in nccl:
            mine = {8: ours[rep][8], 1024: 22.0, 1048576: 101.0}[size]
            rows += [collective_row(size, "out", mine), collective_row(size, "in", 95.0 if size == 1048576 else mine)]
        # Two ranks: at one rank the in-place ratios are never marked (summary.sh checks that on a copy).
        write(f"collectives/plain/r{rep}/collbench-all_reduce.json", collective_report("all_reduce", rows, world_size=2))
    # bf16 GEMM at 8192^3: 1000 us in both tools (ratio 1.000); d2d copy 1 GiB: 1000 us, copy_perf 2000 us (0.500).
    flops = 2.0 * 8192 ** 3
    gemm = {"m": 8192, "n": 8192, "k": 8192, "dtype": "bfloat16", "device": "gpu", "algorithm": "fixture", "threads": 1,
            "rotate_sets": 1, "iterations": 20, "warmup_iterations": 5, "time_aggregation": "max", "time_us": stats(1000.0),
            "tflops": flops / 1e-3 / 1e12, "peak_tflops": None, "peak_is_estimate": False, "percent_of_peak": None,
            "relative_error": 1e-3, "error_bound": 1e-2, "check_iterations": 1, "wrong": 0, "per_rank": [],
            "spread": {"ratio": 1.0}, "kind": "gemm"}
    write("compute/matmul-bfloat16-r1.json", {"schema_version": "2.0", "benchmark": "matmul", "status": "complete",
                                              "context": context("matmul_perf"), "platform": [], "warnings": [],
                                              "results": [gemm], "skipped": [], "summary": {"rows": 1}})
    write("compute/bare-gemm-bf16-r1.txt", "gemm bf16 8192x8192x8192 time_us 1000.000 tflops %.3f\n" % (flops / 1e-3 / 1e12))
    gib = 1 << 30
    write("copy/bare-copy-d2d-pinned.txt", "copy d2d device %d time_us 1000.000 gbps %.3f rw_gbps %.3f\n" % (gib, gib / 1e6, 2 * gib / 1e6))
    copy_row = {"mode": "d2d", "memory": "device", "engine": "driver", "direction": "uni", "src_device": 0, "dst_device": 0,
                "bytes": gib, "time_us": stats(2000.0), "gbps": gib / 2e6}
    write("copy/copy_perf.json", {"schema_version": "copy-1.0", "benchmark": "copy", "status": "complete",
                                  "context": {"argv": ["copy_perf"], "start_time": "2025-01-01T00:00:00Z",
                                              "end_time": "2025-01-01T00:00:01Z", "hosts": ["fixture"]},
                                  "results": [copy_row], "matrices": []})
    # --capture-algo's all_reduce, with NCCL's own estimate on one row (12 us against 10 us
    # measured: 1.200) and none on the other.
    estimated = collective_row(1024, "out", 10.0, 0)
    estimated["algorithm"] = "RING/LL"
    estimated["library_estimate_us"] = 12.0
    plain = collective_row(1024, "in", 10.0, 0)
    plain["algorithm"] = "RING/LL"
    write("capture/all_reduce.json", collective_report("all_reduce", [estimated, plain]))


if __name__ == "__main__":
    main()
