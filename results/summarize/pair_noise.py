#!/usr/bin/env python3
"""Per-pair ratios of the whole-benchmark figure in the folders measure_inject.sh left: how many pairs
straddle a change of machine state (more than 1.25x from their comparison's median pair), and the
spread of the others. Usage: results/summarize/pair_noise.py WORK_DIR"""
import json, os, sys, math, glob, statistics as st
work = sys.argv[1]
def fig(path):
    r = json.load(open(path)); out = {}
    for row in r["results"]:
        out[(row["placement"], row["bytes"])] = st.median(row["samples_us"])
    return out
flips = total = 0; kept = {"aa": [], "s10_": [], "s5_": []}; levels=[]
for d in sorted(glob.glob(os.path.join(work, "*[0-9]"))):
    kind = os.path.basename(d).rstrip("0123456789")
    ratios = []
    for p in glob.glob(d + "/A/run-*.json"):
        q = d + "/B/" + os.path.basename(p)
        if not os.path.exists(q): continue
        try: a, b = fig(p), fig(q)
        except Exception: continue
        ratios.append(sum(math.log(b[k] / a[k]) for k in a) / len(a))
        levels.append(math.exp(sum(math.log(a[k]) for k in a) / len(a)))
    if len(ratios) < 3: continue
    m = st.median(ratios)
    for r in ratios:
        total += 1
        if abs(r - m) > math.log(1.25): flips += 1
        else: kept[kind].append(r)
print("pairs", total, "set aside (whole-benchmark figure)", flips, "%.0f%%" % (100 * flips / total))
for k, v in kept.items():
    if v: print(k, "kept pairs", len(v), "mean change %.1f%%" % (100 * (math.exp(st.mean(v)) - 1)), "sd of pair log ratio %.1f%%" % (100 * st.stdev(v)))
levels.sort(); print("A's whole-benchmark level (us): p10 %.0f median %.0f p90 %.0f" % (levels[len(levels)//10], levels[len(levels)//2], levels[9*len(levels)//10]))
fast = sum(1 for l in levels if l < 60); print("runs in the fast state (<60 us):", fast, "of", len(levels))
