#!/usr/bin/env python3
"""Runs the runnable commands of one Markdown page against a built tree (label docs).

usage: run_doc_commands.py PAGE SOURCE_DIR BINARY_DIR [--list]

Which lines run (docs/layout.md, "Writing docs"):
  - only fenced blocks whose info string is exactly `sh`; ```text, ```console, ```bash ... never run;
  - a block right after a line `<!-- not run: REASON -->` does not run;
  - every other line runs, one command a line (a line ending in a backslash continues), in page
    order, in one bash shell per page, so `export` and files made by earlier lines carry on;
  - a line whose comment ends in a marker, `[gpu]`, `[slurm]`, `[root]`, `[long]` or `[hosts]`
    (needs several machines), does not run (`cmd  # what it does [gpu]`); any other marker in
    brackets at the end of a comment is an error.
The shell starts in a fresh temporary folder where `build` links to BINARY_DIR and every other
top-level entry of SOURCE_DIR (scripts, results, tests, ...) links to the source tree, so the
pages' `build/bin/...` and `scripts/...` commands work and their reports land in the temporary
folder. mpirun may run as root and oversubscribe (Open MPI's environment variables), as
scripts/mpirun-local.sh does, and idle ranks yield their core (the docs test shares 2 cores with
other tests; busy-polling ranks there make a 1 MiB row take seconds). A command that exits non-zero fails the test, naming page and line.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

MARKERS = {"gpu", "slurm", "root", "long", "hosts"}
FENCE = re.compile(r"^(\s*)(```+)(.*)$")
MARKER = re.compile(r"#.*\[([a-z-]+)\]\s*$")
NOT_RUN = re.compile(r"^\s*<!--\s*not run:.*-->\s*$")


def commands(path):
    """Yields (line number, command, skip reason or None) for each candidate line of the page."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    previous = ""
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            if lines[i].strip():
                previous = lines[i]
            i += 1
            continue
        indent, ticks, info = m.group(1), m.group(2), m.group(3).strip()
        runnable = info == "sh" and not NOT_RUN.match(previous)
        i += 1
        pending, start = "", 0
        while i < len(lines):
            line = lines[i]
            closing = FENCE.match(line)
            if closing and closing.group(2) == ticks and not closing.group(3).strip():
                break
            if runnable:
                text = line[len(indent):] if line.startswith(indent) else line.lstrip()
                if not pending:
                    start = i + 1
                if text.rstrip().endswith("\\"):
                    pending += text.rstrip()[:-1] + " "
                else:
                    command = (pending + text).strip()
                    pending = ""
                    if command and not command.startswith("#"):
                        marker = MARKER.search(command)
                        reason = None
                        if marker:
                            if marker.group(1) not in MARKERS:
                                raise SystemExit(f"{path}:{start}: unknown marker [{marker.group(1)}] "
                                                 f"(known: {', '.join(sorted(MARKERS))})")
                            reason = marker.group(1)
                        yield start, command, reason
            i += 1
        if i >= len(lines):
            raise SystemExit(f"{path}: a fence opened and never closed")
        previous = ""
        i += 1


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    page, source, binary = (os.path.abspath(a) for a in sys.argv[1:4])
    shown = os.path.relpath(page, source)
    found = list(commands(page))
    if "--list" in sys.argv[4:]:
        for line, command, reason in found:
            print(f"{shown}:{line}: {'[' + reason + '] ' if reason else ''}{command}")
        return 0
    work = tempfile.mkdtemp(prefix="collbench-docs-")
    try:
        for entry in os.listdir(source):
            if entry not in ("build", ".git"):
                os.symlink(os.path.join(source, entry), os.path.join(work, entry))
        os.symlink(binary, os.path.join(work, "build"))
        script = ["exec 3>&1 >>\"$DOC_LOG\" 2>&1 </dev/null"]
        ran = skipped = 0
        for line, command, reason in found:
            if reason:
                skipped += 1
                continue
            ran += 1
            quoted = command.replace("'", "'\\''")
            script += [f"echo '+ {shown}:{line}: {quoted}'",
                       command,
                       f"rc=$?; if [ $rc -ne 0 ]; then echo \"FAIL {shown}:{line}: exit $rc:\" >&3; "
                       f"echo '  {quoted}' >&3; exit 1; fi"]
        script.append(f"echo 'ok: {shown}: {ran} commands ran, {skipped} skipped by marker' >&3")
        log = os.path.join(work, "doc-commands.log")
        env = dict(os.environ, DOC_LOG=log, OMPI_ALLOW_RUN_AS_ROOT="1",
                   OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1",
                   OMPI_MCA_mpi_yield_when_idle="1",
                   # scripts that find the build themselves (backends.sh, ci-perf.sh): this one
                   COLLBENCH_BIN=os.path.join(binary, "bin"), BUILD_DIR=binary)
        status = subprocess.run(["bash", "-c", "\n".join(script)], cwd=work, env=env).returncode
        if status != 0:
            with open(log, encoding="utf-8", errors="replace") as f:
                tail = f.read().splitlines()[-40:]
            print("--- last lines of the page's output ---")
            print("\n".join(tail))
        return status
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
