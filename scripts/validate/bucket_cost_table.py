#!/usr/bin/env python3
"""The table of scripts/validate/bucket_cost.sh from its raw.jsonl: per bucket size, the median over
repetitions of torch's per-bucket figures (from inside DDP) and of collbench's gloo all-reduce p50
at the same bytes, and their ratio. usage: bucket_cost_table.py RAW.jsonl"""
import json
import statistics
import sys

records = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
torch_by_size, coll_by_size = {}, {}
for r in records:
    if r["side"] == "torch":
        for b in r["bucket_cost"].get("buckets", []):
            torch_by_size.setdefault(b["bytes"], []).append(b)
    else:
        for row in r["rows"]:
            coll_by_size.setdefault(row["bytes"], []).append(row["time_us"]["p50"])
reps = {side: sum(1 for r in records if r["side"] == side) for side in ("torch", "collbench")}
print(f"Per bucket size: medians over {reps['torch']} torch and {reps['collbench']} collbench runs (raw.jsonl).")
print("torch: per profiled step the slowest rank, median over steps, then over runs; collbench: each run's p50.\n")
print("| bytes | buckets a step | torch dispatch_us | torch gloo_us | torch call_to_done_us | collbench gloo p50_us | call_to_done / collbench |")
print("|---:|---:|---:|---:|---:|---:|---:|")
for size in sorted(torch_by_size):
    t = torch_by_size[size]
    per_step = round(len(t) / max(reps["torch"], 1))
    med = lambda key: statistics.median(b[key] for b in t)
    coll = statistics.median(coll_by_size[size]) if size in coll_by_size else None
    ratio = f"{med('call_to_done_us') / coll:.2f}" if coll else "n/a"
    coll_text = f"{coll:.1f}" if coll else "not measured"
    print(f"| {size} | {per_step} | {med('dispatch_us'):.1f} | {med('gloo_us'):.1f} | {med('call_to_done_us'):.1f} | {coll_text} | {ratio} |")
print("\nloads before each run: " + ", ".join(f"{r['side']} {r['rep']}: {r['load']}" for r in records))
