"""The comparisons measure_inject.sh recorded in WORK/ab/results.txt, for the re-judging scripts."""
import os


def comparisons(ab):
    """Yields (kind, index, exit code, runs a side, folder) per comparison that left a verdict."""
    for line in open(os.path.join(ab, "results.txt")).read().splitlines()[1:]:
        kind, index, code, runs = line.split()[:4]
        if runs != "failed":
            yield kind, index, int(code), int(runs), os.path.join(ab, kind + index)
