#!/usr/bin/env python3
"""ddp_step_perf --help and docs/ddp.md define the same figures, word for word (issue 64: the help
kept schema 2.4's alone_us, hidden and slowdown after the docs moved to 2.5).

The help's figure lines ("  NAME   DEFINITION", continued on lines indented to the definition) and
the docs' table under "The figures as `ddp_step_perf --help` defines them" must list the same
figures, in the same order, with the same definitions (white space aside).
usage: ddp_help_figures.py DDP_STEP_PERF DOCS_DDP_MD"""
import re
import subprocess
import sys


def help_figures(program):
    text = subprocess.run([program, "--help"], check=True, capture_output=True, text=True).stdout
    figures, current = [], None
    for line in text.splitlines():
        match = re.match(r"^  (\S+)\s+(\S.*)$", line)
        if match and not line.startswith("   "):
            current = [match.group(1), match.group(2)]
            figures.append(current)
        elif current and re.match(r"^ {13}\S", line):
            current[1] += " " + line.strip()
        else:
            current = None
    # Only the footer's figure block: it starts at step_us and ends at samples/s.
    names = [name for name, _ in figures]
    if "step_us" not in names or "samples/s" not in names:
        sys.exit("FAIL: --help lists no figures from step_us to samples/s")
    block = figures[names.index("step_us"):names.index("samples/s") + 1]
    return [(name, " ".join(text.split())) for name, text in block]


def docs_figures(page):
    lines = open(page, encoding="utf-8").read().splitlines()
    start = next((i for i, line in enumerate(lines) if "The figures as `ddp_step_perf --help` defines them" in line), None)
    if start is None:
        sys.exit("FAIL: docs/ddp.md has no table of the figures as --help defines them")
    figures = []
    for line in lines[start + 1:]:
        row = re.match(r"^\s*\|\s*`([^`]+)`\s*\|\s*(.*?)\s*\|\s*$", line)
        if row:
            figures.append((row.group(1), " ".join(row.group(2).split())))
        elif figures and not line.strip().startswith("|"):
            break
    return figures


help_side, docs_side = help_figures(sys.argv[1]), docs_figures(sys.argv[2])
if [name for name, _ in help_side] != [name for name, _ in docs_side]:
    sys.exit(f"FAIL: --help lists {[n for n, _ in help_side]}, docs/ddp.md {[n for n, _ in docs_side]}")
failures = [f"{name}:\n  --help: {h}\n  docs:   {d}" for (name, h), (_, d) in zip(help_side, docs_side) if h != d]
if failures:
    sys.exit("FAIL: the definitions differ:\n" + "\n".join(failures))
print(f"ok: {len(help_side)} figures defined alike in --help and docs/ddp.md")
