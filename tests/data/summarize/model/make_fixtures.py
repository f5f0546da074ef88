#!/usr/bin/env python3
"""Writes collbench model's fixture reports (committed; rerun only to change them).

Every time follows a known two-level cost exactly, so the tests can ask the fit for the parameters
back and the predictions for closed forms:
  within a host  alpha 2 us,  beta 4 GB/s    (4000 bytes per us)
  between hosts  alpha 50 us, beta 1.25 GB/s (1250 bytes per us: 10 Gbit/s)
Ranks are placed in blocks (ranks 0..R-1 on node-a, R..2R-1 on node-b), as mpirun does.
  ring all_reduce:     2(p-1) steps of m/p; across hosts every step crosses the link: 2(p-1)(50 + m/(p 1250))
  recursive doubling:  steps at distance 1, 2, ...: m each; a step at distance >= R crosses, and
                       all R ranks of a host send across at once, so its bytes count R times
"""
import json, math, os

HERE = os.path.dirname(os.path.abspath(__file__))
INTRA = (2.0, 4000.0)
INTER = (50.0, 1250.0)
SIZES = [8 * 4 ** k for k in range(11)]  # 8 B .. 8 MiB


def ring_time(p, per_host, m):
    alpha, rate = INTER if per_host < p else INTRA
    return 2 * (p - 1) * (alpha + m / p / rate)


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
