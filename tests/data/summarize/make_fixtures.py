#!/usr/bin/env python3
"""Writes the summarizer's fixture reports (committed; rerun only to change them).

Times are round numbers so the tests can state exact answers: speedups, efficiencies, geometric
means and verdicts follow from the figures below by hand.
"""
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))


def row(bytes_, mean, world, algorithm="default", placement="out", samples=None, dtype="float32"):
    factor = 2 * (world - 1) / world
    algbw = bytes_ / mean / 1e3 if mean else 1.0
    r = {"bytes": bytes_, "requested_bytes": bytes_, "count": bytes_ // 4, "dtype": dtype, "op": "sum", "root": -1,
         "placement": placement, "backend": "mpi", "algorithm": algorithm, "cycle": 1, "iterations": 20,
         "warmup_iterations": 5, "time_aggregation": "max",
         "time_us": {"min": mean, "p50": mean, "mean": mean, "p95": mean, "p99": mean, "max": mean, "stdev": 0.0},
         "algbw_gbps": algbw, "bus_bandwidth_factor": factor if world > 1 else 0.0,
         "busbw_gbps": algbw * factor if world > 1 else None, "check_iterations": 1, "wrong": 0}
    if samples is not None:
        r["samples_us"] = samples
        r["iterations"] = len(samples)
        s = sorted(samples)
        m = sum(samples) / len(samples)
        r["time_us"] = {"min": s[0], "p50": s[len(s) // 2], "mean": m, "p95": s[-1], "p99": s[-1], "max": s[-1], "stdev": 0.0}
    return r


def report(benchmark, world, rows, env=None, tags=None, status="complete", version="0.1.0"):
    return {"schema_version": "1.0", "benchmark": benchmark, "status": status,
            "context": {"argv": [benchmark + "_perf"], "start_time": "2025-01-01T00:00:00Z", "end_time": "2025-01-01T00:00:01Z",
                        "world_size": world, "hosts": ["fixture"], "ranks": [], "backend": "mpi",
                        "versions": {"collbench": version, "mpi": "fixture"}, "env": env or {}, "options": {},
                        "tags": tags or {}},
            "results": rows, "skipped": [], "summary": {}}


def write(name, document):
    path = os.path.join(HERE, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        if isinstance(document, str):
            f.write(document)
        else:
            json.dump(document, f, indent=1, sort_keys=True)
            f.write("\n")


# Scaling: 1 KiB gets slower with more ranks, 1 MiB faster (100 -> 80 -> 50 us).
for world, small, large in [(1, 10.0, 100.0), (2, 20.0, 80.0), (4, 40.0, 50.0)]:
    write(f"scaling/np{world}.json", report("all_reduce", world, [row(1024, small, world), row(1048576, large, world)],
                                            tags={"np": str(world)}))

# Speedup: ring vs tree at 2 ranks, chosen by NCCL_ALGO (env and a sweep-style tag); tree is twice
# as fast at 1 KiB and four times slower at 1 MiB: speedups 2 and 0.25, geometric mean sqrt(0.5).
for algo, algorithm, small, large in [("Ring", "ring", 10.0, 100.0), ("Tree", "tree", 5.0, 400.0)]:
    write(f"speedup/{algorithm}.json", report("all_reduce", 2, [row(1024, small, 2, algorithm), row(1048576, large, 2, algorithm)],
                                              env={"NCCL_ALGO": algo}, tags={"NCCL_ALGO": algo}))

# Compare: 20 samples each. "same" is a shuffled copy of base; "slower" is base x 1.30 (p tiny,
# +30 %); "small" is base x 1.02 (+2 %, below the 5 % minimum effect); "noisy" has the same
# median shifted +20 % but with huge spread and few samples (not significant).
base = [100.0 + i for i in range(20)]
variants = {
    "base": base,
    "same": list(reversed(base)),
    "slower": [v * 1.30 for v in base],
    "faster": [v * 0.70 for v in base],
    "small": [v * 1.02 for v in base],
}
for name, samples in variants.items():
    write(f"compare/{name}.json", report("all_reduce", 2, [row(4096, 0, 2, samples=samples)]))
noisy_base = [100.0, 60.0, 140.0, 90.0, 110.0]
noisy_new = [130.0, 50.0, 190.0, 80.0, 120.0]
write("compare/noisy_base.json", report("all_reduce", 2, [row(4096, 0, 2, samples=noisy_base)]))
write("compare/noisy_new.json", report("all_reduce", 2, [row(4096, 0, 2, samples=noisy_new)]))

# Bad input.
write("bad/not_json.json", "{ this is not json\n")
bad_schema = report("all_reduce", 2, [row(1024, 10.0, 2)])
bad_schema["schema_version"] = "3.0"
write("bad/unknown_schema.json", bad_schema)
write("bad/no_rows.json", report("all_reduce", 2, []))
write("bad/broadcast.json", report("broadcast", 2, [row(1024, 10.0, 2)]))
write("partial/np2_partial.json", report("all_reduce", 2, [row(1024, 20.0, 2)], status="partial"))

# Runs as the unit of evidence (compare on folders of repeated runs). Each run has 30 samples
# around its own level; the levels of runs differ by about 1 % (run-to-run noise) and samples
# within a run by about 3 %, with an odd preempted iteration, as on a quiet machine. A fixed seed
# keeps the files the same on every regeneration.
import random
rng = random.Random(20261123)


def run_samples(level):
    samples = [level * rng.lognormvariate(0, 0.03) for _ in range(30)]
    samples[rng.randrange(30)] *= 4  # one preempted iteration: medians shrug it off
    return samples


def run_report(scale, start_time, options=None):
    rows = []
    for size, level in [(65536, 40.0), (262144, 120.0)]:
        rows.append(row(size, 0, 2, samples=run_samples(level * scale * rng.lognormvariate(0, 0.01))))
    document = report("all_reduce", 2, rows)
    document["context"]["start_time"] = start_time
    if options:
        document["context"]["options"] = options
    return document


for side, scale in [("aa_base", 1.0), ("aa_new", 1.0), ("slower20", 1.20)]:
    for run in (1, 2, 3):
        write(f"runs/{side}/run-{run}.json", run_report(scale, f"2026-01-01T0{run}:00:00Z"))
write("runs/aa_base/fingerprint.txt", "cpu_model=Fixture CPU 9000\ncores=2\nmpi=Open MPI 4.1.4\ndate=2026-01-01\n")
write("runs/aa_new/fingerprint.txt", "cpu_model=Fixture CPU 9000\ncores=2\nmpi=Open MPI 4.1.4\ndate=2026-02-01\n")
for run in (1, 2, 3):
    write(f"runs/other_machine/run-{run}.json", run_report(1.0, f"2026-01-01T0{run}:00:00Z"))
write("runs/other_machine/fingerprint.txt", "cpu_model=Another CPU 1\ncores=64\nmpi=Open MPI 4.1.4\n")
for run in (1, 2):
    write(f"runs/two_runs/run-{run}.json", run_report(1.0, f"2026-01-01T0{run}:00:00Z"))
for run in (1, 2, 3):
    write(f"runs/injected/run-{run}.json", run_report(1.10, f"2026-01-01T0{run}:00:00Z", {"inject_slowdown_percent": 10}))

# History: 30 dated runs an hour apart; "step" is 10 % slower from run 20 (index 20) on, "flat" never changes.
for name, step_at in [("step", 20), ("flat", None)]:
    for index in range(30):
        scale = 1.10 if step_at is not None and index >= step_at else 1.0
        hour = f"2026-03-{1 + index // 24:02d}T{index % 24:02d}:00:00Z"
        write(f"history/{name}/run-{index:02d}.json", run_report(scale, hour))

# A shared machine that changes state: in run pair 4 of 5 another job took a core after A's run, so
# B's run is 2.7x slower than its state alone would make it. Every other pair shares its state.
# "state_aa" is B = A otherwise, "state_slower10" B = A x 1.10. (Last, so the fixtures above keep
# their random draws.)
for name, scale in [("state_aa", 1.0), ("state_slower10", 1.10)]:
    for run in range(1, 6):
        start = f"2026-04-01T0{run}:00:00Z"
        if name == "state_aa":
            write(f"runs/state_base/run-{run}.json", run_report(1.0, start))
        write(f"runs/{name}/run-{run}.json", run_report(scale * (2.7 if run == 4 else 1.0), start))

# History with one wild run: 10 % slower from run 20 on, and run 3 alone 2.7x slower (a job beside
# it). A difference of means is pulled to split off the wild run; the energy statistic is not.
for index in range(30):
    scale = (1.10 if index >= 20 else 1.0) * (2.7 if index == 3 else 1.0)
    hour = f"2026-05-{1 + index // 24:02d}T{index % 24:02d}:00:00Z"
    write(f"history/wild_run_step/run-{index:02d}.json", run_report(scale, hour))

# Eight run pairs on a machine that changes state: in pair 4 B's run is 2.7x slower (another job
# took a core). The pairs' Hodges-Lehmann ratio cannot be dragged by it; with eight pairs the
# signed-rank interval's far end can (see state10).
for name, scale in [("state8_aa", 1.0), ("state8_slower10", 1.10)]:
    for run in range(1, 9):
        start = f"2026-06-01T0{run}:00:00Z"
        if name == "state8_aa":
            write(f"runs/state8_base/run-{run}.json", run_report(1.0, start))
        write(f"runs/{name}/run-{run}.json", run_report(scale * (2.7 if run == 4 else 1.0), start))


def loaded_samples(level, disturbed):
    """30 iterations of which a share `disturbed` ran beside another job (1.5-3x slower): the low
    tail stays at the undisturbed cost, the mean follows the share."""
    samples = [level * rng.lognormvariate(0, 0.01) for _ in range(30)]
    for i in rng.sample(range(30), int(30 * disturbed)):
        samples[i] *= rng.uniform(1.5, 3.0)
    return samples


# History of 12 runs without any change in the code, on a machine that gets busier from run 6 on
# (60-80 % of iterations disturbed, 0-20 % before): the mean time rises by ~50 %, p10 stays flat.
for index in range(12):
    disturbed = rng.uniform(0.6, 0.8) if index >= 6 else rng.uniform(0.0, 0.2)
    rows = [row(size, 0, 2, samples=loaded_samples(level, disturbed)) for size, level in [(65536, 40.0), (262144, 120.0)]]
    document = report("all_reduce", 2, rows)
    document["context"]["start_time"] = f"2026-07-01T{index:02d}:00:00Z"
    write(f"history/flat_loaded/run-{index:02d}.json", document)


def with_machine(document, cpu_model="Fixture CPU 9000", cores=2, mpi="Open MPI 4.1.4"):
    document["context"]["machine"] = {"cpu_model": cpu_model, "cores": cores, "threads": cores, "memory_bytes": 8 << 30,
                                      "gpus": [], "kernel": "6.1.0", "hosts": ["fixture"]}
    document["context"]["versions"]["mpi"] = mpi
    return document


# Self-describing reports (context.machine), no fingerprint.txt: the same machine, another CPU
# model, another core count and another MPI library; NEW is 20 % slower each time.
for name, scale, fields in [("machine_base", 1.0, {}), ("machine_same", 1.20, {}), ("machine_cpu", 1.20, {"cpu_model": "Another CPU 1"}),
                            ("machine_cores", 1.20, {"cores": 64}), ("machine_mpi", 1.20, {"mpi": "Open MPI 5.0.0"})]:
    for run in range(1, 9):
        write(f"runs/{name}/run-{run}.json", with_machine(run_report(scale, f"2026-08-01T0{run}:00:00Z"), **fields))

# Times near the largest double (issue 19): medians of two such samples overflowed to infinity.
for side in ("huge_base", "huge_new"):
    for run in (1, 2, 3):
        samples = [1.70e308, 1.75e308, 1.78e308, 1.79e308]
        huge = row(4096, 0, 2, samples=samples)
        huge["time_us"]["mean"] = sum(v / len(samples) for v in samples)  # the plain sum overflows
        huge["algbw_gbps"] = huge["busbw_gbps"] = 1e-300
        write(f"runs/{side}/{side}-{run}.json", report("all_reduce", 2, [huge]))

# A world size beyond int (2^40): refused as out of range, not as "less than 1".
huge_world = report("all_reduce", 2, [row(1024, 10.0, 2)])
huge_world["context"]["world_size"] = 2 ** 40
write("bad/huge_world_size.json", huge_world)

# A start time of the right shape but no real calendar value.
bad_date = report("all_reduce", 2, [row(1024, 10.0, 2)])
bad_date["context"]["start_time"] = "9999-99-99T99:99:99Z"
write("bad/impossible_date/run-1.json", bad_date)

# Ten run pairs with one 2.7x pair (pair 4, B slower), as state8: from ten pairs on, the pair sits
# in 10 of the 55 Walsh averages, fewer than the 11 the signed-rank 90 % interval leaves out at
# each end, so it moves no bound. (Last, so the fixtures above keep their random draws.)
for name, scale in [("state10_aa", 1.0), ("state10_slower10", 1.10)]:
    for run in range(1, 11):
        start = f"2026-09-01T{run:02d}:00:00Z"
        if name == "state10_aa":
            write(f"runs/state10_base/run-{run:02d}.json", run_report(1.0, start))
        write(f"runs/{name}/run-{run:02d}.json", run_report(scale * (2.7 if run == 4 else 1.0), start))

# Ten run pairs on a quiet machine (1 % run-to-run noise), B 5 % and 1 % slower: the paired rule
# finds 5 % (off 0, estimate above the 3 % minimum effect) and lets 1 % pass. (Last, so the
# fixtures above keep their random draws.)
for name, scale in [("pairs10_slower5", 1.05), ("pairs10_slower1", 1.01)]:
    for run in range(1, 11):
        start = f"2026-10-01T{run:02d}:00:00Z"
        if name == "pairs10_slower5":
            write(f"runs/pairs10_base/run-{run:02d}.json", run_report(1.0, start))
        write(f"runs/{name}/run-{run:02d}.json", run_report(scale, start))

# collbench tune: three Open MPI all_reduce candidates against the default, 8 run pairs each at
# 2 ranks, out of place, 1-64 KiB. Each pair shares a machine factor (the default and the candidate
# ran back to back); the candidate's own noise is a fixed +-1 % pattern. ring (4) is 20 % faster
# from 16 KiB (a real win: chosen, one range); recursive_doubling (3) is 2 % faster at 1 KiB (below
# the 3 % minimum effect) and +-5 % noise elsewhere (never chosen); rabenseifner (6) is 25 % faster
# at 64 KiB only, where ring also wins: ring's range is not split. No random draws.
TUNE_MACHINE = {"cpu_model": "Fixture CPU", "cores": 2, "threads": 2}
TUNE_PAIR_FACTOR = [1.00, 1.02, 0.99, 1.01, 0.98, 1.03, 1.00, 0.995]
TUNE_OWN_NOISE = [1.01, 0.99, 1.00, 1.01, 0.99, 1.00, 1.01, 0.99]
TUNE_SWING = [0.95, 1.05, 0.94, 1.04, 0.96, 1.06, 0.95, 1.05]
TUNE_DEFAULT_US = {1024: 10.0, 4096: 20.0, 16384: 40.0, 65536: 80.0}
TUNE_CANDIDATES = {
    "mpi-4": ("ompi-tuned-4", lambda size, run: (0.8 if size >= 16384 else 1.0) * TUNE_OWN_NOISE[run]),
    "mpi-3": ("ompi-tuned-3", lambda size, run: 0.98 * TUNE_OWN_NOISE[run] if size == 1024 else TUNE_SWING[run]),
    "mpi-6": ("ompi-tuned-6", lambda size, run: (0.75 if size == 65536 else 1.0) * TUNE_OWN_NOISE[(run + 3) % 8]),
}


def tune_report(algorithm, scale_of, run):
    rows = [row(size, round(us * TUNE_PAIR_FACTOR[run] * scale_of(size, run), 4), 2, algorithm)
            for size, us in TUNE_DEFAULT_US.items()]
    document = report("all_reduce", 2, rows)
    document["context"]["machine"] = TUNE_MACHINE
    document["context"]["start_time"] = f"2026-11-28T10:{run:02d}:00Z"
    return document


for folder, (algorithm, scale_of) in TUNE_CANDIDATES.items():
    for run in range(8):
        write(f"tune/{folder}/A/run-{run + 1}.json", tune_report("default", lambda size, run: 1.0, run))
        write(f"tune/{folder}/B/run-{run + 1}.json", tune_report(algorithm, scale_of, run))

# collbench tune on a fake NCCL run: 2 GPUs, Tree/LL 30 % faster at 1 and 4 KiB against NCCL's
# own choice, the same from 16 KiB: the tuner's CSV sets tree/ll from 1 KiB to 16 KiB - 1.
def nccl_tune_report(algorithm, scale_of, run):
    document = tune_report(algorithm, scale_of, run)
    for r in document["results"]:
        r["backend"] = "nccl"
    document["context"]["backend"] = "nccl"
    document["context"]["versions"] = {"collbench": "0.1.0", "nccl": "2.28.3", "cuda": "12.8"}
    document["context"]["machine"] = dict(TUNE_MACHINE, gpus=[{"model": "NVIDIA H100 80GB HBM3"}], driver="570.86")
    return document


for run in range(8):
    write(f"tune/nccl-Tree-LL/A/run-{run + 1}.json", nccl_tune_report("default", lambda size, run: 1.0, run))
    write(f"tune/nccl-Tree-LL/B/run-{run + 1}.json",
          nccl_tune_report("forced:Tree/LL", lambda size, run: (0.7 if size <= 4096 else 1.0) * TUNE_OWN_NOISE[run], run))

# Concurrent groups (issue 62): all_reduce at 4 ranks on hosts h0 (ranks 0, 1) and h1 (2, 3), 64 KiB
# and 1 MiB, each group's times round numbers; no random draws. Group 0 takes 40 and 400 us, group 1
# as long in "base" and 1.3x in "slower1"; each run's times carry the same small run-to-run pattern.
# Groups of 2 ranks: bus-bandwidth factor 1, so a group's busbw is its algbw.
GROUP_HOSTS = ["h0", "h0", "h1", "h1"]
GROUP_LEVELS = {65536: 40.0, 1048576: 400.0}
GROUP_RUN_NOISE = [1.0, 1.01, 0.99, 1.005]


def stats(mean):
    return {"min": mean, "p10": mean, "p50": mean, "mean": mean, "p95": mean, "p99": mean, "max": mean, "stdev": 0.0}


def grouped_row(bytes_, layout, times, alone=None):
    """layout: {id: ranks}; times (and alone): {id: mean us}. The headline is the slowest group's."""
    groups = []
    for gid, ranks in layout.items():
        n = len(ranks)
        factor = 2 * (n - 1) / n if n > 1 else 0.0
        algbw = bytes_ / times[gid] / 1e3
        group = {"id": gid, "ranks": ranks, "hosts": [GROUP_HOSTS[r] for r in ranks], "bytes": bytes_, "time_us": stats(times[gid]),
                 "algbw_gbps": algbw, "bus_bandwidth_factor": factor, "busbw_gbps": algbw * factor}
        if alone:
            group["alone_time_us"] = stats(alone[gid])
            group["contention"] = times[gid] / alone[gid]
        groups.append(group)
    slowest = max(groups, key=lambda g: g["time_us"]["mean"])
    r = row(bytes_, slowest["time_us"]["mean"], 2)
    r["kind"] = "collective"
    r["time_us"] = stats(slowest["time_us"]["mean"])
    for key in ("algbw_gbps", "bus_bandwidth_factor", "busbw_gbps"):
        r[key] = slowest[key]
    r["time_aggregation"] = "mean"
    total = bytes_ * len(groups)
    r["groups"] = groups
    r["aggregate"] = {"bytes_total": total, "time_us": slowest["time_us"]["mean"], "algbw_gbps": total / slowest["time_us"]["mean"] / 1e3,
                      "busbw_sum_gbps": sum(g["busbw_gbps"] for g in groups)}
    return r


def grouped_report(layout, scales, start_time, alone=None, options=None):
    """scales: {id: factor on the levels}; alone: {id: factor on the levels, timed alone}."""
    rows = [grouped_row(size, layout, {g: level * scales[g] for g in layout}, alone and {g: level * alone[g] for g in layout})
            for size, level in GROUP_LEVELS.items()]
    document = report("all_reduce", 4, rows)
    document["schema_version"] = "2.9"
    document["context"]["hosts"] = ["h0", "h1"]
    document["context"]["start_time"] = start_time
    document["context"]["options"] = dict({"split": "MOD 2", "split_source": "--split", "slow_group_factor": 0.9,
                                          "slow_group_reference": "median_of_faster_half"}, **(options or {}))
    return document


MOD2 = {0: [0, 2], 1: [1, 3]}
for run, noise in enumerate(GROUP_RUN_NOISE, start=1):
    write(f"groups/base/run-{run}.json", grouped_report(MOD2, {0: noise, 1: noise}, f"2026-11-01T0{run}:00:00Z"))
    write(f"groups/slower1/run-{run}.json", grouped_report(MOD2, {0: noise, 1: 1.3 * noise}, f"2026-11-01T0{run + 4}:00:00Z"))
    # DIV 2: groups 0 {0,1} (h0) and 1 {2,3} (h1), none of base's: the same ids, other ranks.
    write(f"groups/layout_div/run-{run}.json",
          grouped_report({0: [0, 1], 1: [2, 3]}, {0: noise, 1: noise}, f"2026-11-02T0{run}:00:00Z", options={"split": "DIV 2"}))
    # Group 0 as base's, rank 1 and rank 3 alone: group 1 has base's id but not its ranks.
    write(f"groups/three/run-{run}.json",
          grouped_report({0: [0, 2], 1: [1], 2: [3]}, {0: noise, 1: noise, 2: noise}, f"2026-11-03T0{run}:00:00Z", options={"split": "by hand"}))
    # A report before groups, and one group of every rank ("AND 0"): both read as the world.
    plain = report("all_reduce", 4, [row(size, level * noise, 4) for size, level in GROUP_LEVELS.items()])
    plain["context"]["start_time"] = f"2026-11-04T0{run}:00:00Z"
    write(f"groups/ungrouped/run-{run}.json", plain)
    write(f"groups/world_group/run-{run}.json",
          grouped_report({0: [0, 1, 2, 3]}, {0: noise}, f"2026-11-05T0{run}:00:00Z", options={"split": "AND 0"}))
# --alone: group 0 40/400 us beside group 1, 32/320 alone (contention 1.25); group 1 1.3x slower,
# 52/520, and 40/400 alone (contention 1.3). At 1 MiB group 1's busbw 2.0165 GB/s is below 0.9 x
# 2.6214, group 0's (of two groups, the faster half is the faster one): SLOW.
write("groups/alone.json", grouped_report(MOD2, {0: 1.0, 1: 1.3}, "2026-11-06T00:00:00Z", alone={0: 0.8, 1: 1.0}))
