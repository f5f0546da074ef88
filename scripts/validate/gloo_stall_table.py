#!/usr/bin/env python3
"""The table of scripts/validate/gloo_stall.sh: per (build, variant, load, size) the median over
repetitions of each run's p50, with the range over repetitions, in microseconds."""
import collections, json, statistics, sys

runs = collections.defaultdict(list)
for line in open(sys.argv[1] + "/raw.jsonl"):
    r = json.loads(line)
    runs[(r["load"], r["build"], r["variant"], r["bytes"])].append(r["p50_us"])
sizes = sorted({k[3] for k in runs})
columns = sorted({k[:3] for k in runs}, key=lambda k: (k[0] != "quiet", k[1], k[2]))
print("| load | build | launch | " + " | ".join(f"{s} B" for s in sizes) + " |")
print("|---|---|---|" + "---:|" * len(sizes))
for load, build, variant in columns:
    cells = []
    for s in sizes:
        v = runs.get((load, build, variant, s))
        cells.append(f"{statistics.median(v):.0f} ({min(v):.0f}-{max(v):.0f})" if v else "")
    print(f"| {load} | {build} | {variant} | " + " | ".join(cells) + " |")
