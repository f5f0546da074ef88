#!/usr/bin/env python3
"""Each run's level in history's all-rows series, in percent from the usual, one line per series:
the median over rows of log(figure / the row's median), the row figure being the p10 over cycles
of each cycle's p10 (compare's rule). A reading aid for the history tables in README.md.
usage: all_rows_levels.py WORK/history KIND... [--state-guard] (KIND: flat, step)
--state-guard: without the runs that history's state guard set aside (WORK/history/KIND-N.json,
state_guard.set_aside): the levels history judged, for history_power.py's runs-needed bootstrap."""
import glob, json, math, sys
from collections import defaultdict


def median(values):
    s = sorted(values)
    n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


def p10(values):
    s = sorted(values)
    position = 0.1 * (len(s) - 1)
    low = int(position)
    high = min(low + 1, len(s) - 1)
    return s[low] + (s[high] - s[low]) * (position - low)


def levels(folder, skip=()):
    rows = defaultdict(dict)
    for path in sorted(glob.glob(folder + "/run-*.json")):
        if path in skip:
            continue
        cycles = defaultdict(list)
        for row in json.load(open(path))["results"]:
            if row.get("kind") == "collective":
                cycles[(row["bytes"], row["placement"])].append(row["time_us"]["p10"])
        for key, values in cycles.items():
            rows[key][path] = math.log(p10(values))
    runs = sorted(set.intersection(*[set(r) for r in rows.values()]))
    usual = {key: median([rows[key][run] for run in runs]) for key in rows}
    return [median([rows[key][run] - usual[key] for key in rows]) for run in runs]


if __name__ == "__main__":  # history-length-2026-12-02/levels.py imports median and p10
    guard = "--state-guard" in sys.argv[2:]
    for kind in [a for a in sys.argv[2:] if a != "--state-guard"]:
        for series in range(1, 21):
            folder = f"{sys.argv[1]}/{kind}-{series}"
            if glob.glob(folder + "/run-*.json"):
                skip = set()
                if guard:
                    judged = json.load(open(f"{folder}.json"))
                    skip = {run["report"] for run in judged.get("state_guard", {}).get("set_aside", [])}
                print(f"{kind}-{series:2d}", " ".join(f"{100 * (math.exp(v) - 1):6.1f}" for v in levels(folder, skip)))
