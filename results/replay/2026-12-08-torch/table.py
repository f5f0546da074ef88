#!/usr/bin/env python3
"""The timing table of results/replay/2026-12-08-torch from its raw files: per ranks, job and call
(collective, size bucket), the median over the repetitions of each figure (us per call) and of the
ratios replay gloo / torch loop, with their range. usage: table.py DIR (holds rep*/np*/JOB.*.compare.csv)"""
import csv, glob, os, statistics, sys
root = sys.argv[1]
reps = sorted(glob.glob(os.path.join(root, "rep*")))
cells = {}
for rep in reps:
    for path in glob.glob(os.path.join(rep, "np*", "*.gloo.compare.csv")):
        np_, job = os.path.basename(os.path.dirname(path)), os.path.basename(path).split(".")[0]
        mpi = {(r["collective"], r["bucket_bytes"]): r for r in csv.DictReader(open(path.replace(".gloo.", ".mpi.")))}
        for r in csv.DictReader(open(path)):
            key = (int(np_[2:]), job, r["collective"], int(r["bucket_bytes"]))
            c = cells.setdefault(key, {"gloo": [], "mpi": [], "torch": [], "batch": [], "r_torch": [], "r_batch": []})
            c["gloo"].append(float(r["replay_us"])); c["torch"].append(float(r["torch_us"]))
            c["batch"].append(float(r["torch_io_batch_us"]))
            c["r_torch"].append(float(r["ratio_torch"])); c["r_batch"].append(float(r["ratio_torch_io_batch"]))
            c["mpi"].append(float(mpi[(r["collective"], r["bucket_bytes"])]["replay_us"]))
med = statistics.median
def kib(b): return f"{b // 1024} KiB"
print(f"{len(reps)} repetitions: {', '.join(os.path.basename(r) for r in reps)}; us per call, median over them; ratios replay gloo / torch loop, median (min-max)\n")
print("| ranks | job | call | bytes | replay gloo | replay mpi | torch loop | torch loop, I/O thread batch | gloo / torch | gloo / torch batch |")
print("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|")
for key in sorted(cells):
    c = cells[key]
    rng = lambda v: f"{med(v):.3f} ({min(v):.3f}-{max(v):.3f})"
    print(f"| {key[0]} | {key[1]} | {key[2]} | {kib(key[3])} | {med(c['gloo']):.1f} | {med(c['mpi']):.1f} | {med(c['torch']):.1f} | {med(c['batch']):.1f} | {rng(c['r_torch'])} | {rng(c['r_batch'])} |")
