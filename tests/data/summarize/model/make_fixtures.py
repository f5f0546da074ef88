#!/usr/bin/env python3
"""Writes collbench model's fixture reports (committed; rerun only to change them).

Every time follows a known two-level cost exactly, so the tests can ask the fit for the parameters
back and the predictions for closed forms:
  within a host  alpha 2 us,  beta 4 GB/s    (4000 bytes per us)
  between hosts  alpha 50 us, beta 1.25 GB/s (1250 bytes per us: 10 Gbit/s)
Ranks are placed in blocks (ranks 0..R-1 on node-a, R..2R-1 on node-b), as mpirun does.
  ring all_reduce:     2(p-1) steps of m/p, a chain of hops of which hosts/p cross hosts: latency
                       2(p-1)(hosts/p 50 + (1 - hosts/p) 2), bytes at the link between hosts 2(p-1) m/(p 1250)
  recursive doubling:  steps at distance 1, 2, ...: m each; a step at distance >= R crosses, and
                       all R ranks of a host send across at once, so its bytes count R times
"""
import json, math, os

HERE = os.path.dirname(os.path.abspath(__file__))
INTRA = (2.0, 4000.0)
INTER = (50.0, 1250.0)
SIZES = [8 * 4 ** k for k in range(11)]  # 8 B .. 8 MiB


def ring_time(p, per_host, m):
    if per_host >= p:
        return 2 * (p - 1) * (INTRA[0] + m / p / INTRA[1])
    # The ring's steps form one chain: of its hops, one per host crosses hosts (share hosts / p);
    # every step's bytes wait for the link between hosts.
    crossing = (p // per_host) / p
    return 2 * (p - 1) * (crossing * INTER[0] + (1 - crossing) * INTRA[0] + m / p / INTER[1])


def doubling_time(p, per_host, m):
    total = 0.0
    for k in range(int(math.log2(p))):
        distance = 2 ** k
        if distance < per_host:
            total += INTRA[0] + m / INTRA[1]
        else:
            total += INTER[0] + per_host * m / INTER[1]
    return total


def row(bytes_, time, p, algorithm):
    factor = 2 * (p - 1) / p
    algbw = bytes_ / time / 1e3
    return {"kind": "collective", "bytes": bytes_, "requested_bytes": bytes_, "count": bytes_ // 4, "dtype": "float32", "op": "sum",
            "root": -1, "placement": "out", "backend": "mpi", "algorithm": algorithm, "cycle": 1, "iterations": 20,
            "warmup_iterations": 5, "time_aggregation": "mean",
            "time_us": {"min": time, "p10": time, "p50": time, "mean": time, "p95": time, "p99": time, "max": time, "stdev": 0.0},
            "algbw_gbps": algbw, "bus_bandwidth_factor": factor, "busbw_gbps": algbw * factor, "check_iterations": 0, "wrong": None}


def context(p, per_host, machine=None):
    ranks = [{"rank": r, "host": "node-a" if r < per_host else "node-b", "local_rank": r % per_host, "device": "cpu", "pid": 100 + r}
             for r in range(p)]
    hosts = sorted({entry["host"] for entry in ranks})
    return {"argv": ["all_reduce_perf"], "start_time": "2025-01-01T00:00:00Z", "end_time": "2025-01-01T00:00:01Z",
            "world_size": p, "hosts": hosts, "ranks": ranks, "backend": "mpi",
            "versions": {"collbench": "0.1.0", "mpi": "fixture MPI 1.0"}, "env": {}, "options": {}, "tags": {},
            "machine": machine or {"cpu_model": "fixture CPU", "cores": 2, "threads": 2}}


def report(p, per_host, rows, machine=None):
    return {"schema_version": "2.1", "benchmark": "all_reduce", "status": "complete", "context": context(p, per_host, machine),
            "results": rows, "skipped": [], "summary": {}}


def write(name, document):
    path = os.path.join(HERE, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(document, f, indent=1, sort_keys=True)
        f.write("\n")


# (world size, ranks per host): 2 on one host, 2 over two hosts, 4 over two hosts.
for p, per_host in [(2, 2), (2, 1), (4, 2)]:
    where = "one-host" if per_host == p else f"{p // per_host}-hosts"
    write(f"two_hosts/ring-np{p}-{where}.json", report(p, per_host, [row(m, ring_time(p, per_host, m), p, "ring") for m in SIZES]))
    write(f"two_hosts/doubling-np{p}-{where}.json",
          report(p, per_host, [row(m, doubling_time(p, per_host, m), p, "ompi-tuned-3 (recursive_doubling)") for m in SIZES]))

# Bad input: one size only; two machines in one folder.
write("bad/one_size/np2.json", report(2, 2, [row(1024, ring_time(2, 2, 1024), 2, "ring")]))
write("bad/two_machines/np2.json", report(2, 2, [row(m, ring_time(2, 2, m), 2, "ring") for m in SIZES]))
write("bad/two_machines/np4.json", report(4, 2, [row(m, ring_time(4, 2, m), 4, "ring") for m in SIZES],
                                          machine={"cpu_model": "another CPU", "cores": 64, "threads": 128}))


# collbench model ddp: a ddp_step_perf report and a model whose answers are closed forms.
# The model: ring all_reduce, alpha 100 us, beta 10 GB/s (1e4 bytes per us), on one host.
def interval(value):
    return [value, value, value]


def ring_piece(p):
    return {"from_bytes": 8, "to_bytes": 134217728, "alpha_us": interval(2 * (p - 1) * 100.0),
            "beta_gbps": interval(10.0 / (2 * (p - 1) / p)), "points": 25, "rms_relative_error": 0.0}


write("ddp/model.json", {
    "collbench_model": 1, "figure": "p10", "machine": "cpu on 1 host(s)", "sources": ["fixture"],
    "series": [{"key": {"benchmark": "all_reduce", "backend": "mpi", "algorithm": "default", "dtype": "float32", "op": "sum",
                        "root": "-1", "placement": "in"},
                "bus_factor": "2(p-1)/p", "smallest_bytes": 8, "largest_bytes": 134217728, "notes": [],
                "per_world_size": [{"world_size": p, "hosts": 1, "pieces": [ring_piece(p)]} for p in (2, 4)],
                "across_world_sizes": {"form": "ring", "chosen_by_fit": False, "alpha_us": interval(100.0), "beta_gbps": interval(10.0),
                                       "intra_measured": True, "rms_relative_error": 0.0, "bootstrap": []}}]})
# A model with no all_reduce in it.
write("ddp/broadcast_model.json", {
    "collbench_model": 1, "figure": "p10", "machine": "cpu on 1 host(s)", "sources": ["fixture"],
    "series": [{"key": {"benchmark": "broadcast", "backend": "mpi", "algorithm": "default", "dtype": "float32", "op": "none",
                        "root": "0", "placement": "out"},
                "bus_factor": "1", "smallest_bytes": 8, "largest_bytes": 1024, "notes": [],
                "per_world_size": [{"world_size": 2, "hosts": 1, "pieces": [ring_piece(2)]}]}]})

# The report: 2 ranks on one host, weak scaling with 32 samples per rank; 26,214,400 parameters
# (100 MiB of float32 gradients); per micro-step forward 10 ms and backward 20 ms.
PARAMETERS = 26214400


def ddp_row(grad_dtype, accumulate, bucket_mb=25, step_us=31000.0, with_buckets=True):
    element = 4 if grad_dtype == "float32" else 2
    r = {"kind": "ddp_step", "model": "fixture-100MiB", "backend": "mpi", "device": "cpu", "threads": 1, "scaling": "weak",
         "batch": 32, "global_batch": 64, "bucket_mb": bucket_mb, "first_bucket_mb": bucket_mb, "overlap": "on",
         "comm_thread": "fixture", "grad_dtype": grad_dtype, "accumulate": accumulate, "compute_scale": 1, "cycle": 1,
         "iterations": 10, "warmup_iterations": 2, "time_aggregation": "max",
         "time_us": {"min": step_us, "p10": step_us, "p50": step_us, "mean": step_us, "p95": step_us, "p99": step_us, "max": step_us,
                     "stdev": 0.0},
         "forward_us": 10000.0 * accumulate, "backward_compute_us": 20000.0 * accumulate, "compute_us": 30000.0 * accumulate,
         "comm_us": 1000.0, "exposed_comm_us": step_us - 30000.0 * accumulate, "overlap_fraction": None, "comm_compute_ratio": None,
         "samples_per_s": 64 * accumulate / (step_us * 1e-6), "forward_gemm_flops": 0.0, "backward_gemm_flops": 0.0,
         "check_iterations": 0, "wrong": None, "max_error": None, "error_bound": 0.0, "per_rank": []}
    if with_buckets:
        r.update({"buckets": 4, "allreduce_calls": 4, "allreduce_bytes": PARAMETERS * element})
    return r


def ddp_report(rows):
    c = context(2, 2)
    c["argv"] = ["ddp_step_perf"]
    return {"schema_version": "2.1", "benchmark": "ddp_step", "status": "complete", "context": c,
            "model": {"name": "fixture-100MiB", "source": "fixture", "parameters": PARAMETERS, "tensors": 100,
                      "forward_flops_per_sample": 0.0, "backward_flops_per_sample": 0.0},
            "warnings": [], "results": rows, "summary": {}}


write("ddp/report.json", ddp_report([ddp_row("float32", 1), ddp_row("float16", 4, step_us=121000.0)]))
write("bad/ddp_without_buckets.json", ddp_report([ddp_row("float32", 1, with_buckets=False)]))
