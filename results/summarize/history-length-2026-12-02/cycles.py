#!/usr/bin/env python3
"""Each run's state probe beside its 8 cycles' times, from measure_history_length.sh's reports.

  cycles.py HISTORY_DIR > cycles.tsv     # HISTORY_DIR: the history/ folder (reports.tar.xz unpacked)

One line a run: series, run, probe before and after (ns), then the mean time (us) of the 256 KiB
out-of-place all_reduce row in each of the run's cycles (-N 8), and the ratio of its slowest cycle to
its fastest. The summary at the end (as '#' lines) counts runs whose cycles differ by over 2x (the
machine's state changed during the run) and runs whose two probes differ by over 2x.
"""
import json
import os
import sys

root = sys.argv[1]
within, probes_apart, runs = 0, 0, 0
print("series\trun\tprobe_before_ns\tprobe_after_ns\t" + "\t".join(f"cycle{c}_us" for c in range(1, 9)) + "\tslowest/fastest")
for series in sorted(os.listdir(root), key=lambda s: (s.split("-")[0], int(s.split("-")[1]))):
    folder = os.path.join(root, series)
    if not os.path.isdir(folder):
        continue
    for name in sorted(os.listdir(folder)):
        report = json.load(open(os.path.join(folder, name)))
        probe = report["context"].get("state_probe") or {}
        times = [row["time_us"]["mean"] for row in report["results"]
                 if row.get("kind") == "collective" and row["bytes"] == 262144 and row["placement"] == "out"]
        ratio = max(times) / min(times)
        runs += 1
        within += ratio > 2
        before, after = probe.get("before_ns"), probe.get("after_ns")
        if before and after and max(before, after) / min(before, after) > 2:
            probes_apart += 1
        print(f"{series}\t{name[4:6]}\t{before or '-'}\t{after or '-'}\t" + "\t".join(f"{t:.1f}" for t in times) + f"\t{ratio:.2f}")
print(f"# runs: {runs}; cycles over 2x apart within a run: {within}; probes before and after over 2x apart: {probes_apart}")
