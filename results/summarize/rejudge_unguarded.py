#!/usr/bin/env python3
"""What ab without its machine-state guard would have said on the same runs (issue 20). The guard
moved a pair it saw in two states to DIR/set-aside/ and ran it again; an unguarded ab would have
kept that first try. So for each comparison the first try of every pair stands in for the kept
one, and ab's sequential rule is replayed (collbench compare --paired after 3, 4, ... pairs; stop
at the first look with no UNKNOWN row, or at 10). Where the guarded run stopped before the
unguarded rule decided, the replay runs out of pairs: such comparisons are counted apart
("undecided"). Also counts the pairs the guard ran again. Usage:
  results/summarize/rejudge_unguarded.py WORK/ab BIN_DIR/collbench [FIRST_RUNS=3 [MAX_RUNS=10]]
"""
import json, os, shutil, subprocess, sys, tempfile

from ab_results import comparisons

ab, collbench = sys.argv[1], sys.argv[2]
first_runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
max_runs = int(sys.argv[4]) if len(sys.argv) > 4 else 10


def replay(folder, runs):
    scratch = tempfile.mkdtemp()
    try:
        for side in "AB":
            os.makedirs(f"{scratch}/{side}")
        for look in range(1, runs + 1):
            for side in "AB":
                first_try = f"{folder}/set-aside/{side}/run-{look}.try-1.json"
                source = first_try if os.path.exists(first_try) else f"{folder}/{side}/run-{look}.json"
                os.symlink(os.path.abspath(source), f"{scratch}/{side}/run-{look}.json")
            if look < first_runs:
                continue
            result = subprocess.run([collbench, "compare", "--paired", "--format", "json", f"{scratch}/A", f"{scratch}/B"],
                                    capture_output=True, text=True)
            if json.loads(result.stdout)["counts"]["unknown"] == 0 or look == max_runs:
                return result.returncode
        return None  # out of pairs before the rule decided
    finally:
        shutil.rmtree(scratch)


outcomes = {}
for kind, index, code, runs, folder in comparisons(ab):
    rerun = json.load(open(folder + ".json")).get("state_guard", {}).get("pairs_run_again", 0)
    unguarded = replay(folder, runs) if rerun else code
    outcomes.setdefault(kind, []).append((code == 1, unguarded, rerun))
print("| comparison | count | exit 1, guarded (as run) | exit 1, unguarded replay | replay undecided | comparisons with a pair run again | pairs run again |")
print("|---|---|---|---|---|---|---|")
for kind, rows in outcomes.items():
    print(f"| {kind} | {len(rows)} | {sum(r[0] for r in rows)} | {sum(r[1] == 1 for r in rows)} | {sum(r[1] is None for r in rows)} | "
          f"{sum(r[2] > 0 for r in rows)} | {sum(r[2] for r in rows)} |")
