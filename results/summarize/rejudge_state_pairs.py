#!/usr/bin/env python3
"""What the proposed state guard would have made of measure_verdicts.sh's ab folders (issue 20): a
pair whose two runs differ on the benchmark as a whole (each run's geometric mean over rows of its
lowest cycle p10) by more than FACTOR either way ran in two machine states, not two versions of the
code. The guard would run such a pair again; offline there is nothing to run, so the pair is
dropped and the rest judged with `collbench compare --paired` (ab's defaults). Fewer pairs than ab
would have had, so the power here is a floor. Usage:
  results/summarize/rejudge_state_pairs.py WORK/ab FACTOR BIN_DIR/collbench
"""
import json, math, os, shutil, subprocess, sys, tempfile

from ab_results import comparisons

ab, factor, collbench = sys.argv[1], float(sys.argv[2]), sys.argv[3]


def whole_benchmark(path):
    per_row = {}
    for row in json.load(open(path))["results"]:
        per_row.setdefault((row["placement"], row["bytes"]), []).append(row["time_us"]["p10"])
    return math.exp(sum(math.log(min(values)) for values in per_row.values()) / len(per_row))


outcomes = {}
for kind, index, code, runs, folder in comparisons(ab):
    kept = []
    for run in range(1, runs + 1):
        a, b = f"{folder}/A/run-{run}.json", f"{folder}/B/run-{run}.json"
        if 1 / factor < whole_benchmark(b) / whole_benchmark(a) < factor:
            kept.append(run)
    scratch = tempfile.mkdtemp()
    for side in "AB":
        os.makedirs(f"{scratch}/{side}")
        for new_index, run in enumerate(kept, 1):
            os.symlink(os.path.abspath(f"{folder}/{side}/run-{run}.json"), f"{scratch}/{side}/run-{new_index}.json")
    judged = subprocess.run([collbench, "compare", "--paired", f"{scratch}/A", f"{scratch}/B"], capture_output=True).returncode if len(kept) >= 3 else 0
    shutil.rmtree(scratch)
    outcomes.setdefault(kind, []).append((code == 1, judged == 1, len(kept) < runs))
print(f"| comparison | count | exit 1 as run | exit 1, pairs beyond {factor}x dropped | comparisons with a pair dropped |")
print("|---|---|---|---|---|")
for kind, rows in outcomes.items():
    print(f"| {kind} | {len(rows)} | {sum(r[0] for r in rows)} | {sum(r[1] for r in rows)} | {sum(r[2] for r in rows)} |")
