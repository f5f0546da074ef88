#!/usr/bin/env python3
"""collbench history on synthetic series: position error of a known step, and false changes.

Usage: results/summarize/measure_history.py COLLBENCH WORK_DIR SERIES NOISE STEP [WILD]
Each series: 30 dated all_reduce reports (one hour apart), 2 rows (64 KiB, 256 KiB), 30 samples a
row. Every run has its own level, lognormal with sd NOISE (run-to-run noise), samples 3 % around
it with one preempted iteration. "step" series are STEP slower from a random run k in 5..25 on;
"flat" series never change. WILD (default 0): the chance that a run is 2.7x slower on its own (a
job beside it on a shared machine); 0 draws nothing extra, so the series are those of earlier
measurements. Seeded, so the numbers repeat. HISTORY_ARGS (environment): more `collbench history` flags.
"""
import json, os, random, subprocess, sys

collbench, work, count, noise, step = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
wild = float(sys.argv[6]) if len(sys.argv) > 6 else 0.0
rng = random.Random(7)


def report(levels, start_time):
    rows = []
    for size, level in zip((65536, 262144), levels):
        samples = [level * rng.lognormvariate(0, 0.03) for _ in range(30)]
        samples[rng.randrange(30)] *= 4
        s = sorted(samples)
        mean = sum(samples) / len(samples)
        rows.append({"bytes": size, "requested_bytes": size, "count": size // 4, "dtype": "float32", "op": "sum", "root": -1,
                     "placement": "out", "backend": "mpi", "algorithm": "default", "cycle": 1, "iterations": 30,
                     "warmup_iterations": 5, "time_aggregation": "max",
                     "time_us": {"min": s[0], "p50": s[15], "mean": mean, "p95": s[-2], "p99": s[-1], "max": s[-1], "stdev": 0.0},
                     "algbw_gbps": size / mean / 1e3, "bus_bandwidth_factor": 1.0, "busbw_gbps": size / mean / 1e3,
                     "check_iterations": 0, "wrong": None, "samples_us": samples})
    return {"schema_version": "1.0", "benchmark": "all_reduce", "status": "complete",
            "context": {"argv": ["all_reduce_perf"], "start_time": start_time, "end_time": start_time, "world_size": 2,
                        "hosts": ["synthetic"], "ranks": [], "backend": "mpi", "versions": {"mpi": "synthetic"}, "env": {},
                        "options": {}, "tags": {}},
            "results": rows, "skipped": [], "summary": {}}


results = {"step": [], "flat": []}
for kind in ("step", "flat"):
    for series in range(count):
        folder = os.path.join(work, f"{kind}{series}")
        os.makedirs(folder, exist_ok=True)
        at = rng.randint(5, 25) if kind == "step" else None
        for index in range(30):
            scale = 1 + step if at is not None and index >= at else 1.0
            if wild > 0 and rng.random() < wild:
                scale *= 2.7
            levels = [base * scale * rng.lognormvariate(0, noise) for base in (40.0, 120.0)]
            stamp = f"2026-03-{1 + index // 24:02d}T{index % 24:02d}:00:00Z"
            with open(os.path.join(folder, f"run-{index:02d}.json"), "w") as f:
                json.dump(report(levels, stamp), f)
        out = subprocess.run([collbench, "history", folder, "--format", "json"] + os.environ.get("HISTORY_ARGS", "").split(),
                             capture_output=True, text=True)
        document = json.loads(out.stdout)
        found = []
        for table in document["tables"]:
            for row in table["rows"]:
                found.append(int(row["report"].rsplit("run-", 1)[1][:2]))
        results[kind].append((at, found, out.returncode))

step_rows = [(at, found) for at, found, _ in results["step"]]
per_row_found = [(at, f) for at, found in step_rows for f in [found]]
detected = sum(1 for at, found in step_rows if found and min(abs(f - at) for f in found) <= 2)
errors = [min(abs(f - at) for f in found) for at, found in step_rows if found]
extra = sum(max(0, len(found) - 2) for at, found in step_rows)  # 2 rows per series: one change each is right
flat_any = sum(1 for at, found, _ in results["flat"] if found)
flat_changes = sum(len(found) for at, found, _ in results["flat"])
exit_step = sum(1 for _, _, code in results["step"] if code == 1)
exit_flat = sum(1 for _, _, code in results["flat"] if code == 1)
print(f"noise {noise:.0%} per run, step {step:.0%}, wild runs {wild:.0%}, {count} series of each kind, 30 runs, 2 rows each")
print(f"step series: found within 2 runs of the true step in {detected}/{count}; position error (runs) over found changes: "
      f"mean {sum(errors) / max(1, len(errors)):.2f}, max {max(errors) if errors else 'n/a'}; exact in "
      f"{sum(1 for e in errors if e == 0)}/{len(errors)}; changes beyond one per row: {extra}; exit 1: {exit_step}/{count}")
print(f"flat series: with any change {flat_any}/{count} ({flat_changes} changes over {2 * count} row series); exit 1: {exit_flat}/{count}")
