#!/usr/bin/env python3
"""Recomputes every collbench / nccl-tests time ratio in results/gpu/README.md from the raw files.

usage: results/gpu/recompute.py [--collbench BIN] [FOLDER...]

Each FOLDER (default: every side-by-side set committed under results/gpu/) holds either
repetition folders r1, r2, ... or the files of one repetition: nccl-tests-<collective>.txt (its
stdout) beside collbench-<collective>.json. Per collective and size it prints the out-of-place
ratio collbench / nccl-tests as the median of the per-repetition ratios, its range and the number
of repetitions, and names the files it read. Then, per folder, the ranges the README quotes: the
ratio from 32 MiB up and at 8-16 MiB. It parses both tools' output with scripts/gpu-verify-summary.py
(nccl-tests' table; collbench reports through `collbench table`), so a figure here and in a
summary.md come from the same code. Exit 0, or 2 with one line on stderr for a missing folder.
"""
import glob
import importlib.util
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SETS = ["2026-11-26-h100/verify/collectives/plain", "2026-11-26-h100/verify/collectives/graph",
        "2026-11-26-h100/verify/collectives/registered", "2026-11-26-h100/full-sweep", "2026-11-26-h100/extra",
        "2026-11-27-h100/before-fix/verify/collectives/plain", "2026-11-27-h100/after-fix/verify/collectives/plain"]


def load_summary_maker():
    spec = importlib.util.spec_from_file_location("gpu_verify_summary", os.path.join(ROOT, "scripts", "gpu-verify-summary.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def repetitions(folder):
    reps = sorted(glob.glob(os.path.join(folder, "r[0-9]*")))
    return reps if reps else [folder]


def ratios_of(summary, collbench, folder):
    """{collective: {bytes: [(ratio, nccl-tests file, collbench file), ...]}}, out of place."""
    found = {}
    for rep in repetitions(folder):
        for text_path in sorted(glob.glob(os.path.join(rep, "nccl-tests-*.txt"))):
            collective = os.path.basename(text_path)[len("nccl-tests-"):-len(".txt")]
            json_path = os.path.join(rep, f"collbench-{collective}.json")
            if not os.path.exists(json_path):
                continue
            theirs = summary.parse_nccl_tests(summary.read(text_path))
            ours = {row["bytes"]: row["time_us"] for row in summary.collbench_rows(collbench, [json_path])
                    if row["placement"] == "out"}
            for size, placements in theirs.items():
                their_time = placements["out"][0]
                if their_time and ours.get(size):
                    found.setdefault(collective, {}).setdefault(size, []).append(
                        (ours[size] / their_time, os.path.relpath(text_path, HERE), os.path.relpath(json_path, HERE)))
    return found


def span(values):
    return f"{min(values):.3f}–{max(values):.3f}" if values else "–"


def main(argv):
    collbench, folders = os.path.join(ROOT, "build", "bin", "collbench"), []
    i = 0
    while i < len(argv):
        if argv[i] == "--collbench" and i + 1 < len(argv):
            collbench, i = argv[i + 1], i + 2
        elif argv[i].startswith("-"):
            print(f"recompute.py: error: unknown argument '{argv[i]}'", file=sys.stderr)
            return 2
        else:
            folders.append(argv[i])
            i += 1
    folders = folders or [os.path.join(HERE, name) for name in SETS]
    for folder in folders:
        if not os.path.isdir(folder):
            print(f"recompute.py: error: {folder} is not a folder", file=sys.stderr)
            return 2
    summary = load_summary_maker()
    for folder in folders:
        found = ratios_of(summary, collbench, folder)
        print(f"## {os.path.relpath(folder, HERE)} ({len(repetitions(folder))} repetition(s))\n")
        print("| collective | size | ratio out (median) | range | reps | nccl-tests file (first) | collbench file (first) |")
        print("|---|---|---|---|---|---|---|")
        large, middle = [], []
        for collective in sorted(found):
            for size in sorted(found[collective]):
                runs = found[collective][size]
                ratios = [ratio for ratio, _, _ in runs]
                median = statistics.median(ratios)
                if size >= 32 << 20:
                    large.append(median)
                if 8 << 20 <= size <= 16 << 20:
                    middle.append(median)
                print(f"| {collective} | {summary.size_text(size)} | {median:.3f} | {span(ratios)} | {len(runs)} | "
                      f"{runs[0][1]} | {runs[0][2]} |")
        print(f"\nMedians from 32 MiB up: {span(large)} over {len(large)} rows of {len(found)} collective(s); "
              f"at 8–16 MiB: {span(middle)} over {len(middle)} rows.\n")
    for path, message in summary.UNREADABLE:
        print(f"unreadable: {os.path.relpath(path, HERE)}: {message}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
