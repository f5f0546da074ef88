#!/usr/bin/env python3
"""Writes small reports of every row kind, in the layouts older builds wrote (1.0 matmul, membw and
envcheck reports without a row "kind"; copy_perf's copy-1.0) and in schema 2.0 (committed; rerun
only to change them). Times are round numbers so verdicts follow by hand."""
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))


def stats(mean):
    return {"min": mean, "p50": mean, "mean": mean, "p95": mean, "p99": mean, "max": mean, "stdev": 0.0}


def context(program, world=1):
    return {"argv": [program], "start_time": "2025-01-01T00:00:00Z", "end_time": "2025-01-01T00:00:01Z",
            "world_size": world, "hosts": ["fixture"], "ranks": [], "backend": "compute",
            "versions": {"collbench": "0.1.0"}, "env": {}, "options": {}, "tags": {}}


def gemm(m, n, k, mean, dtype="float32", kind=True):
    tflops = 2.0 * m * n * k / (mean * 1e-6) / 1e12
    row = {"m": m, "n": n, "k": k, "dtype": dtype, "device": "cpu", "algorithm": "openblas", "threads": 1, "rotate_sets": 1,
           "iterations": 3, "warmup_iterations": 1, "time_aggregation": "max", "time_us": stats(mean), "tflops": tflops,
           "peak_tflops": None, "peak_is_estimate": False, "percent_of_peak": None, "relative_error": 1e-7,
           "error_bound": 1e-5, "check_iterations": 1, "wrong": 0, "per_rank": [], "spread": {"ratio": 1.0}}
    if kind:
        row["kind"] = "gemm"
    return row


def matmul(version, rows):
    return {"schema_version": version, "benchmark": "matmul", "status": "complete", "context": context("matmul_perf"),
            "platform": [], "warnings": [], "results": rows, "skipped": [], "summary": {"rows": len(rows)}}


def write(name, document):
    with open(os.path.join(HERE, name), "w") as f:
        json.dump(document, f, indent=1, sort_keys=True)
        f.write("\n")


# matmul: the 1.0 base; the 2.0 "new" is 50 % slower at 256^3 and the same at 128^3 and 100x60x300.
write("matmul_v1.json", matmul("1.0", [gemm(128, 128, 128, 100.0, kind=False), gemm(256, 256, 256, 800.0, kind=False),
                                      gemm(100, 60, 300, 50.0, kind=False)]))
write("matmul_v2_slower.json", matmul("2.0", [gemm(128, 128, 128, 100.0), gemm(256, 256, 256, 1200.0), gemm(100, 60, 300, 50.0)]))

stream_rows = []
for kernel, factor in [("copy", 2), ("triad", 3)]:
    for size in [65536, 1048576]:
        mean = size / 10000.0
        stream_rows.append({"kernel": kernel, "bytes": size, "bytes_counted": factor * size, "device": "cpu", "threads": 1,
                            "iterations": 3, "warmup_iterations": 1, "time_aggregation": "max", "time_us": stats(mean),
                            "gbps": factor * size / (mean * 1e3), "peak_gbps": None, "percent_of_peak": None,
                            "check_iterations": 1, "wrong": 0, "per_rank": [], "spread": {"ratio": 1.0}})
write("membw_v1.json", {"schema_version": "1.0", "benchmark": "membw", "status": "complete", "context": context("membw_perf"),
                        "platform": [], "warnings": [], "results": stream_rows, "skipped": [], "summary": {"rows": 4}})

probe_rows = []
for rank, (gflops, gbps) in enumerate([(40.0, 30.0), (20.0, 29.0)]):
    probe_rows.append({"rank": rank, "inventory": {"host": "node%d" % rank, "cpu_model": "fixture", "online_cores": 2},
                       "probes": {"device": "cpu", "gemm_gflops": gflops, "gemm_gflops_samples": [gflops],
                                  "triad_gbps": gbps, "triad_gbps_samples": [gbps]},
                       "relative_speed": gflops / 40.0, "slow": rank == 1})
write("envcheck_v1.json", {"schema_version": "1.0", "benchmark": "envcheck", "status": "complete",
                           "context": context("envcheck", 2), "slow_ranks": [1], "warnings": [], "results": probe_rows,
                           "summary": {"ranks": 2}})

# copy_perf before the report family: its own schema name, four statistics, no world size or backend.
copy_rows = []
for size in [8, 4096, 65536]:
    mean = 0.05 + size / 20000.0
    copy_rows.append({"mode": "host", "memory": "host", "engine": "cpu", "direction": "uni", "src_device": -1,
                      "dst_device": -1, "bytes": size,
                      "time_us": {"min": mean, "p50": mean, "mean": mean, "max": mean}, "gbps": size / (mean * 1e3)})
write("copy_v1.json", {"schema_version": "copy-1.0", "benchmark": "copy", "status": "complete",
                       "context": {"argv": ["copy_perf"], "start_time": "2025-01-01T00:00:00Z",
                                   "versions": {"collbench": "0.1.0"}, "end_time": "2025-01-01T00:00:01Z"},
                       "results": copy_rows, "matrices": []})

# alltoallv_perf (schema 2.1): collective rows of their own kind, keyed by the traffic pattern too.
def alltoallv_row(pattern, busiest, mean, ranks=4):
    algbw = busiest / (mean * 1e3)
    return {"kind": "alltoallv", "bytes": busiest, "requested_bytes": busiest, "count": busiest // 4, "dtype": "float32",
            "op": "none", "root": -1, "placement": "out", "backend": "mpi", "algorithm": "default", "cycle": 1,
            "iterations": 3, "warmup_iterations": 1, "time_aggregation": "mean", "time_us": stats(mean),
            "algbw_gbps": algbw, "bus_bandwidth_factor": (ranks - 1) / ranks, "busbw_gbps": algbw * (ranks - 1) / ranks,
            "check_iterations": 1, "wrong": 0, "bitdiff": None,
            "traffic": {"pattern": pattern, "seed": 1, "bytes_per_rank": busiest // 2, "max_send_bytes": busiest // 2,
                        "min_send_bytes": busiest // 2, "max_receive_bytes": busiest, "min_receive_bytes": busiest // 8,
                        "total_bytes": 2 * busiest, "largest_pair_bytes": busiest // 4}}


write("alltoallv_v2.json", {"schema_version": "2.1", "benchmark": "alltoallv", "status": "complete",
                            "context": dict(context("alltoallv_perf", 4), backend="mpi"), "skipped": [],
                            "results": [alltoallv_row(p, size, 5.0 + size / 1000.0) for p in ["uniform", "zipf:1.2"]
                                        for size in [4096, 65536]],
                            "summary": {"rows": 4}})


# comm_init_perf (schema 2.1): one row per way and communicator size, and the job's start-up.
def comm_init_row(method, size, mean):
    return {"kind": "comm_init", "backend": "mpi", "method": method, "comm_size": size, "cycle": 1, "iterations": 3,
            "warmup_iterations": 1, "time_us": stats(mean),
            "time_over_ranks_us": {"mean": mean, "max": mean, "min": mean}, "rate_per_s": 1e6 / mean,
            "timing": "barrier each iteration", "timestamp": "2025-01-01T00:00:01Z", "wrong": None}


write("comm_init_v2.json", {"schema_version": "2.1", "benchmark": "comm_init", "status": "complete",
                            "context": dict(context("comm_init_perf", 4), backend="mpi"), "skipped": [],
                            "startup": {"job_s": 0.5, "per_rank_s": [0.5, 0.4, 0.4, 0.3]},
                            "results": [comm_init_row(m, size, 10.0 * size) for m in ["MPI_Comm_dup", "MPI_Comm_split"]
                                        for size in [1, 2, 4]],
                            "summary": {"rows": 6}})
