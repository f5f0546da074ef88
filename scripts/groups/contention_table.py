#!/usr/bin/env python3
"""The contention table of scripts/groups/contention.sh, recomputed from its raw reports.

usage: scripts/groups/contention_table.py DIR
  DIR holds together.N.json (4 ranks, --split "MOD 2": groups {0,2} and {1,3}), alone0.N.json and
  alone1.N.json (each group's sweep on 2 ranks by itself) for repetitions N = 1, 2, ...

Per run the figure is a row's p10 time (interference only adds time); per group and size the
table gives the median over the repetitions of together and of alone, their ratio (the
contention: 1 means the other group cost nothing), and the range of the per-repetition ratios.
Writes DIR/contention.md and prints it.
"""
import glob
import json
import os
import re
import statistics
import sys


def rows(path):
    with open(path) as f:
        return json.load(f)["results"]


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.exit("usage: contention_table.py DIR (a folder of contention.sh's reports)")
    out = sys.argv[1]
    reps = sorted(int(m.group(1)) for m in (re.fullmatch(r"together\.(\d+)\.json", os.path.basename(p))
                                             for p in glob.glob(os.path.join(out, "together.*.json"))) if m)
    if not reps:
        sys.exit(f"contention_table.py: {out} holds no together.N.json")
    together, alone = {}, {}  # (group, requested bytes) -> {rep: p10}
    for rep in reps:
        for row in rows(f"{out}/together.{rep}.json"):
            for group in row["groups"]:
                together.setdefault((group["id"], row["requested_bytes"]), {})[rep] = group["time_us"]["p10"]
        for g in (0, 1):
            for row in rows(f"{out}/alone{g}.{rep}.json"):
                alone.setdefault((g, row["requested_bytes"]), {})[rep] = row["time_us"]["p10"]
    lines = [f"# Contention: each group beside the other against alone (p10 per run, median over {len(reps)} interleaved repetitions)", "",
             "| group | size (B) | together (us) | alone (us) | contention | per-repetition range |", "|---|---|---|---|---|---|"]
    for key in sorted(together):
        both = sorted(set(together[key]) & set(alone.get(key, {})))
        if not both:
            continue
        t = statistics.median(together[key][rep] for rep in both)
        a = statistics.median(alone[key][rep] for rep in both)
        ratios = [together[key][rep] / alone[key][rep] for rep in both]
        lines.append(f"| {key[0]} | {key[1]} | {t:.1f} | {a:.1f} | {t / a:.2f} | {min(ratios):.2f}-{max(ratios):.2f} |")
    with open(f"{out}/contention.md", "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
