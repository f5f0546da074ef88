#!/usr/bin/env python3
"""Each run's level in percent from its series' usual, one line per series, in history_power.py's
format, from measure_history_length.sh's reports, with a choice of the run's figure:

  levels.py HISTORY_DIR FIRST_RUN ESTIMATOR > levels.txt

FIRST_RUN: the series' runs from this index on (12 of 24: the last 12, step at the 8th).
ESTIMATOR: how a row's figure is made from its 8 cycles (each cycle's p10 and p50 are in the report):
  p10-of-p10  history's and compare's rule: the p10 over cycles of each cycle's p10
  median-p50  the median over cycles of each cycle's p50 (a state that holds a minority of the
              run's cycles, fast or slow, does not move it)
  usual-cycles  the median of the cycles' p50 that lie within 0.8x-1.5x of the row's usual cycle
              (the median of every cycle's p50 over the series): cycles in the fast (about 0.7x)
              or slow (about 2.7x) state left out; a run with none left gets level +900 %, which
              history's 1.5x rule sets aside
The run's level is the median over its rows of log(figure / the row's usual) as in
all_rows_levels.py, the usual being the row's median over the series' runs.
"""
import json
import math
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from all_rows_levels import median, p10  # noqa: E402 (history's rule, as all_rows_levels.py makes it)


ESTIMATORS = {
    "p10-of-p10": lambda cycles: p10([c["p10"] for c in cycles]),
    "median-p50": lambda cycles: median([c["p50"] for c in cycles]),
}

root, first, name_of_estimator = sys.argv[1], int(sys.argv[2]), sys.argv[3]
estimator = ESTIMATORS.get(name_of_estimator)
for series in sorted(os.listdir(root), key=lambda s: (s.split("-")[0], int(s.split("-")[1]))):
    folder = os.path.join(root, series)
    if not os.path.isdir(folder):
        continue
    rows = defaultdict(list)  # (bytes, placement) -> per run log figure
    runs_cycles = []
    for name in sorted(os.listdir(folder))[first:]:
        cycles = defaultdict(list)
        for row in json.load(open(os.path.join(folder, name)))["results"]:
            if row.get("kind") == "collective":
                cycles[(row["bytes"], row["placement"])].append(row["time_us"])
        runs_cycles.append(cycles)
    usual_cycle = {key: median([c["p50"] for cycles in runs_cycles for c in cycles[key]]) for key in runs_cycles[0]}
    for cycles in runs_cycles:
        for key, values in cycles.items():
            if estimator:
                rows[key].append(math.log(estimator(values)))
                continue
            kept = [c["p50"] for c in values if 0.8 <= c["p50"] / usual_cycle[key] <= 1.5]
            rows[key].append(math.log(median(kept)) if kept else math.log(10 * usual_cycle[key]))
    usual = {key: median(values) for key, values in rows.items()}
    runs = len(next(iter(rows.values())))
    levels = [median([rows[key][i] - usual[key] for key in rows]) for i in range(runs)]
    print(f"{series:7}" + " ".join(f"{100 * (math.exp(x) - 1):.1f}" for x in levels))
