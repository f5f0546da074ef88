#!/usr/bin/env python3
"""Each run's probes in time order beside its cycles' times, from measure_history_length.sh's reports
(schema 2.6: a probe between each two -N cycles).

  cycles.py HISTORY_DIR > cycles.tsv

One line a run: series, run, its 9 probes (before, between the 8 cycles, after; ns, '-' where none
was made), then the mean time (us) of the 256 KiB out-of-place all_reduce row in each of its 8
cycles. The '#' lines at the end say how the cycle probes (3 bursts of 500) and the run probes
(5 of 2000) read in each state: cycles whose time is over 2x the series' median cycle ("slow") or
within 0.8-1.25x of it ("usual"), against the probes on either side of them; and, in runs
all in the usual state, how the light cycle probe reads against the run's full probes.
"""
import json
import os
import statistics
import sys

root = sys.argv[1]
lines, judged = [], []  # judged: (cycle time / series median, max of its two probes / usual probe)
every_probe = []
runs = []
for series in sorted(os.listdir(root), key=lambda s: (s.split("-")[0], int(s.split("-")[1]))):
    folder = os.path.join(root, series)
    if not os.path.isdir(folder):
        continue
    for name in sorted(os.listdir(folder)):
        report = json.load(open(os.path.join(folder, name)))
        probe = report["context"].get("state_probe") or {}
        probes = [probe.get("before_ns")] + list(probe.get("between_cycles_ns") or []) + [probe.get("after_ns")]
        times = [row["time_us"]["mean"] for row in report["results"]
                 if row.get("kind") == "collective" and row["bytes"] == 262144 and row["placement"] == "out"]
        runs.append((series, name[4:6], probes, times))
        every_probe += [p for p in probes if p]
usual_probe = statistics.median(every_probe)
by_series = {}
for series, run, probes, times in runs:
    by_series.setdefault(series, []).extend(times)
print("series\trun\t" + "\t".join(f"probe{k}_ns" for k in range(9)) + "\t" + "\t".join(f"cycle{c}_us" for c in range(1, 9)))
between_ratio = []
for series, run, probes, times in runs:
    print(f"{series}\t{run}\t" + "\t".join(f"{p:.1f}" if p else "-" for p in probes) + "\t" + "\t".join(f"{t:.1f}" for t in times))
    median = statistics.median(by_series[series])
    for k, t in enumerate(times):
        around = [p for p in probes[k:k + 2] if p]
        if around:
            judged.append((t / median, max(around) / usual_probe))
    # A run all in one state (every cycle within 0.8-1.25x): its cycle probes against its run probes.
    if probes[0] and probes[-1] and all(0.8 <= t / median <= 1.25 for t in times):
        between_ratio += [p / ((probes[0] + probes[-1]) / 2) for p in probes[1:-1] if p]


def describe(name, values):
    values = sorted(values)
    if not values:
        return f"# {name}: none"
    q = lambda f: values[min(len(values) - 1, int(f * len(values)))]
    return f"# {name}: {len(values)} cycles; the larger probe beside them / usual probe: p10 {q(0.1):.2f}, median {q(0.5):.2f}, p90 {q(0.9):.2f}; over 2x: {sum(v > 2 for v in values)}"


print(f"# usual probe (median of every probe): {usual_probe:.1f} ns; runs {len(runs)}")
print(describe("slow cycles (over 2x the series' median cycle)", [p for t, p in judged if t > 2]))
print(describe("usual cycles (0.8-1.25x)", [p for t, p in judged if 0.8 <= t <= 1.25]))
print(describe("fast cycles (under 0.8x)", [p for t, p in judged if t < 0.8]))
ratios = sorted(between_ratio)
print(f"# in runs all in the usual state: each cycle probe / the mean of the run's probes before and after: median {statistics.median(ratios):.2f}, "
      f"p10 {ratios[len(ratios) // 10]:.2f}, p90 {ratios[9 * len(ratios) // 10]:.2f}")
