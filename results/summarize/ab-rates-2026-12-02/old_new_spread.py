#!/usr/bin/env python3
"""The run figure ab uses (each run's p10 over its cycles' p10s) per row, for the old and new reports of
old_new_runs.sh: median, MAD and IQR over runs, and the new/old ratio of each ABBA pair.
  old_new_spread.py OUT
"""
import json, glob, statistics as st, sys, math
out = sys.argv[1]
def fig(path):
    d = json.load(open(path)); rows = {}
    for r in d["results"]:
        t = r.get("time_us") or {}
        if "p10" not in t: continue
        rows.setdefault((r["bytes"], r["placement"]), []).append(t["p10"])
    res = {}
    for k, v in rows.items():
        v = sorted(v); q = 0.1 * (len(v) - 1); lo = math.floor(q); hi = min(lo + 1, len(v) - 1)
        res[k] = v[lo] + (v[hi] - v[lo]) * (q - lo)
    return res, d["context"].get("state_probe") or {}
n = len(glob.glob(f"{out}/old-*.json"))
data = {v: [fig(f"{out}/{v}-{i}.json") for i in range(1, n + 1)] for v in ("old", "new")}
keys = sorted(data["old"][0][0])
print(f"{n} runs a version, ABBA; figure: each run's p10 over its 8 cycles' p10 (ab's)")
for k in keys:
    line = [f"{k[0]:>7} {k[1]:>3}"]
    for v in ("old", "new"):
        xs = [r[0][k] for r in data[v]]
        med = st.median(xs); mad = st.median([abs(x - med) for x in xs])
        q = st.quantiles(xs, n=4)
        line.append(f"{v}: median {med:.2f} us, MAD {100*mad/med:.1f} %, IQR {100*(q[2]-q[0])/med:.1f} %")
    ratios = [data["new"][i][0][k] / data["old"][i][0][k] for i in range(n)]
    rq = st.quantiles(ratios, n=4)
    line.append(f"new/old paired: median {st.median(ratios):.3f} (IQR {rq[0]:.3f}-{rq[2]:.3f})")
    print(" | ".join(line))
for v in ("old", "new"):
    pr = [(p.get("before_ns"), p.get("after_ns")) for _, p in data[v]]
    print(v, "probes before/after (ns):", " ".join(f"{a:.0f}/{b:.0f}" if a and b else "-" for a, b in pr))
