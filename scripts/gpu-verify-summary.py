#!/usr/bin/env python3
"""summary.md from the folder scripts/gpu-verify.sh fills (its verify/ state folder).

usage: gpu-verify-summary.py WORK_DIR [--collbench BIN] [--low 0.98] [--high 1.02]

Reads nccl-tests' stdout tables (the format of nccl-tests' src/util.cu: size count type redop root,
then time algbw busbw #wrong out of place and again in place) and collbench reports through
`collbench table --format json` (the one report reader), and writes Markdown to stdout: versions,
the steps with their time, the test phase's #wrong, the per-size time ratio collbench / nccl-tests
per variant (median over paired repetitions; every row outside [low, high] marked), the compute and
copy figures against bare_cuda's references, the algorithm capture and the -T checks.
Exit 0, or 2 with one line on stderr when WORK_DIR is not such a folder.
"""
import glob
import json
import os
import re
import statistics
import subprocess
import sys


def fail(message):
    print(f"gpu-verify-summary.py: error: {message}", file=sys.stderr)
    sys.exit(2)


NUMBER = r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|N/A)"
# A data line: size count type redop root, then (time algbw busbw #wrong) out of place and in place.
ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(-?\d+)\s+(" + NUMBER + r")\s+(" + NUMBER + r")\s+(" + NUMBER +
                 r")\s+(" + NUMBER + r")\s+(" + NUMBER + r")\s+(" + NUMBER + r")\s+(" + NUMBER + r")\s+(" + NUMBER + r")\s*$")


def parse_nccl_tests(text):
    """{bytes: {"out": (time_us, wrong), "in": (time_us, wrong)}} from nccl-tests stdout; header and
    comment lines (#) are skipped; a line that does not match the table is ignored."""
    rows = {}
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            continue
        match = ROW.match(line)
        if not match:
            continue
        value = lambda text: None if text == "N/A" else float(text)
        groups = match.groups()
        rows[int(groups[0])] = {"out": (value(groups[5]), value(groups[8])), "in": (value(groups[9]), value(groups[12]))}
    return rows


def nccl_tests_version(text):
    match = re.search(r"^# nccl-tests version (\S+) nccl-headers=(\d+) nccl-library=(\d+)", text, re.M)
    return match.groups() if match else None


# Reports collbench could not read (a run that died before writing, say): listed in the summary
# instead of ending it, so one broken run does not hide the rest.
UNREADABLE = []


def collbench_rows(collbench, paths):
    """The rows of collbench reports, through `collbench table --format json`, one report at a time."""
    rows = []
    for path in paths:
        result = subprocess.run([collbench, "table", "--format", "json", path], capture_output=True, text=True)
        if result.returncode != 0:
            UNREADABLE.append((path, (result.stderr.strip() or f"collbench table exit {result.returncode}").splitlines()[-1]))
            continue
        for table in json.loads(result.stdout)["tables"]:
            rows.extend(table["rows"])
    return rows


def report_statuses(collbench, paths):
    """{path: (status, rows, wrong)} from `collbench table --summary yes --format json`."""
    statuses = {}
    for path in paths:
        result = subprocess.run([collbench, "table", "--summary", "yes", "--format", "json", path], capture_output=True, text=True)
        if result.returncode != 0:
            UNREADABLE.append((path, (result.stderr.strip() or f"collbench table exit {result.returncode}").splitlines()[-1]))
            continue
        for table in json.loads(result.stdout)["tables"]:
            for row in table["rows"]:
                statuses[row["report"]] = (row["status"], row["rows"], row["wrong"])
    return statuses


def size_text(size):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} B"


def fmt(value, digits=2):
    return "–" if value is None else f"{value:.{digits}f}"


def read(path):
    with open(path, errors="replace") as handle:
        return handle.read()


def steps_section(work):
    lines = ["## Steps", "", "| phase | step | status | seconds | note |", "|---|---|---|---|---|"]
    path = os.path.join(work, "steps.tsv")
    if not os.path.exists(path):
        return lines + ["", "No step has run."]
    for line in read(path).splitlines():
        fields = (line.split("\t") + [""] * 5)[:5]
        mark = "" if fields[2] == "ok" else "**"
        lines.append(f"| {fields[0]} | {fields[1]} | {mark}{fields[2]}{mark} | {fields[3]} | {fields[4].replace('|', '/')} |")
    return lines


def test_section(work, collbench):
    paths = sorted(glob.glob(os.path.join(work, "test", "*.json")))
    if not paths:
        return []
    lines = ["## Correctness (`-d all -c 1`, `-o all` for the reductions; `--test-sizes`, by default 8 B – 64 MiB)", "", "| report | status | rows | #wrong |", "|---|---|---|---|"]
    for path, (status, rows, wrong) in sorted(report_statuses(collbench, paths).items()):
        mark = "" if wrong == 0 and status == "complete" else " **CHECK**"
        lines.append(f"| {os.path.basename(path)} | {status} | {rows} | {wrong}{mark} |")
    return lines


def side_by_side_section(work, collbench, variant, low, high):
    """The per-size ratio table of one variant (plain, graph, registered)."""
    base = os.path.join(work, "collectives", variant)
    repetitions = sorted(glob.glob(os.path.join(base, "r*")))
    if not repetitions:
        return [], 0
    collectives = sorted({re.sub(r"^nccl-tests-(.*)\.txt$", r"\1", os.path.basename(p))
                          for p in glob.glob(os.path.join(base, "r*", "nccl-tests-*.txt"))})
    lines = [f"## collbench / nccl-tests: {variant}", "",
             "Time per call (µs), median over repetitions; ratio = median of the per-repetition ratios "
             f"(min–max); **OUT** marks a row outside {low}–{high}.", ""]
    outside = 0
    any_one_rank = False
    for collective in collectives:
        # per size and placement: lists of (nccl-tests, collbench) times, one pair per repetition
        pairs = {}
        one_rank = False
        for rep in repetitions:
            text_path = os.path.join(rep, f"nccl-tests-{collective}.txt")
            json_path = os.path.join(rep, f"collbench-{collective}.json")
            if not (os.path.exists(text_path) and os.path.exists(json_path)):
                continue
            theirs = parse_nccl_tests(read(text_path))
            ours = {(row["bytes"], row["placement"]): row["time_us"] for row in collbench_rows(collbench, [json_path])}
            one_rank = one_rank or world_size(json_path) == 1
            for size, placements in theirs.items():
                for placement, (time_us, _) in placements.items():
                    mine = ours.get((size, placement))
                    if time_us and mine:
                        pairs.setdefault((size, placement), []).append((time_us, mine))
        if not pairs:
            lines += [f"### {collective}", "", "No size was measured by both tools.", ""]
            continue
        lines += [f"### {collective}", "",
                  "| size | nccl-tests out | collbench out | ratio out | nccl-tests in | collbench in | ratio in | |",
                  "|---|---|---|---|---|---|---|---|"]
        for size in sorted({size for size, _ in pairs}):
            cells, mark = [], ""
            for placement in ("out", "in"):
                runs = pairs.get((size, placement))
                if not runs:
                    cells += ["–", "–", "–"]
                    continue
                ratios = [mine / theirs for theirs, mine in runs]
                ratio = statistics.median(ratios)
                # At one rank NCCL skips an in-place copy: both tools time an empty call.
                if not low <= ratio <= high and not (placement == "in" and one_rank):
                    mark = "**OUT**"
                cells += [fmt(statistics.median(t for t, _ in runs)), fmt(statistics.median(m for _, m in runs)),
                          f"{ratio:.3f} ({min(ratios):.3f}–{max(ratios):.3f}, {len(runs)})"]
            outside += bool(mark)
            lines.append(f"| {size_text(size)} | " + " | ".join(cells) + f" | {mark} |")
        lines.append("")
        any_one_rank = any_one_rank or one_rank
    note = (" At one rank NCCL skips an in-place copy, so both tools time an empty call there: those"
            " in-place ratios are shown and never marked." if any_one_rank else "")
    lines.insert(4, f"Rows outside {low}–{high}: {outside}.{note}")
    lines.insert(5, "")
    return lines, outside


def run_times_section(work):
    """Each side-by-side run's wall time (runs.tsv), median per variant, collective and tool."""
    path = os.path.join(work, "runs.tsv")
    if not os.path.exists(path):
        return []
    seconds = {}  # (variant, collective) -> tool -> [seconds of the runs that succeeded]
    failed = 0
    for line in read(path).splitlines():
        fields = line.split("\t")
        if len(fields) != 6:
            continue
        variant, _, collective, tool, wall, outcome = fields
        if outcome != "ok":
            failed += 1
            continue
        try:
            seconds.setdefault((variant, collective), {}).setdefault(tool, []).append(float(wall))
        except ValueError:
            continue
    lines = ["## Run wall times", "",
             "Seconds per side-by-side run, start-up, buffer set-up, every size's warm-up and timing "
             "included (median over repetitions, runs); what a lease's minutes go to. Failed runs left out: "
             f"{failed}.", "",
             "| variant | collective | nccl-tests s | collbench s | collbench / nccl-tests |", "|---|---|---|---|---|"]
    for (variant, collective), tools in sorted(seconds.items()):
        theirs, mine = tools.get("nccl-tests"), tools.get("collbench")
        cells = [f"{statistics.median(t):.1f} ({len(t)})" if t else "–" for t in (theirs, mine)]
        ratio = (f"{statistics.median(mine) / statistics.median(theirs):.1f}"
                 if theirs and mine and statistics.median(theirs) > 0 else "–")
        lines.append(f"| {variant} | {collective} | {cells[0]} | {cells[1]} | {ratio} |")
    return lines


def world_size(report_path):
    """The report's context.world_size; None where the report cannot be read (listed elsewhere)."""
    try:
        with open(report_path) as handle:
            return json.load(handle)["context"]["world_size"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def bare_lines(paths):
    """bare_cuda's one-line outputs: {(kind, what, memory-or-shape): {"time_us":, "gbps"/"tflops":}}"""
    results = {}
    for path in paths:
        for line in read(path).splitlines():
            fields = line.split()
            if len(fields) >= 6 and fields[0] in ("gemm", "copy"):
                values = dict(zip(fields[3::2] if fields[0] == "gemm" else fields[4::2],
                                  map(float, fields[4::2] if fields[0] == "gemm" else fields[5::2])))
                if fields[0] == "copy":
                    values["bytes"] = float(fields[3])
                key = (fields[0], fields[1], fields[2])
                results.setdefault(key, []).append(values)
    return results


def compute_section(work, collbench):
    base = os.path.join(work, "compute")
    reports = sorted(glob.glob(os.path.join(base, "matmul-*.json")))
    if not reports:
        return []
    bare = bare_lines(sorted(glob.glob(os.path.join(base, "bare-gemm-*.txt"))))
    lines = ["## Compute: matmul_perf against one bare cuBLASLt call (bench/baselines/bare_cuda.cu)", "",
             "| dtype | shape | matmul_perf TFLOP/s | bare cuBLASLt TFLOP/s | ratio | runs |", "|---|---|---|---|---|---|"]
    by_dtype = {}
    for row in collbench_rows(collbench, reports):
        if row.get("tflops") is not None:
            by_dtype.setdefault((row["dtype"], row["shape"]), []).append(row["tflops"])
    if not by_dtype:
        lines.append("| no GEMM row was written (see the compute logs) | | | | | |")
    for (dtype, shape), figures in sorted(by_dtype.items()):
        bare_type = "fp8" if dtype == "fp8" else "bf16"
        reference = [values["tflops"] for values in bare.get(("gemm", bare_type, shape), [])]
        ours, theirs = statistics.median(figures), statistics.median(reference) if reference else None
        lines.append(f"| {dtype} | {shape} | {fmt(ours, 1)} | {fmt(theirs, 1)} | {fmt(ours / theirs if theirs else None, 3)} | "
                     f"{len(figures)} / {len(reference)} |")
    return lines


def copy_section(work, collbench):
    base = os.path.join(work, "copy")
    bare = bare_lines(sorted(glob.glob(os.path.join(base, "bare-copy-*.txt"))))
    if not bare and not os.path.exists(os.path.join(base, "copy_perf.json")):
        return []
    lines = ["## Copies against the measured copy ceiling (bare cudaMemcpyAsync)", ""]
    lines += ["| reference | bytes | GB/s | read+write GB/s |", "|---|---|---|---|"]
    ceilings = {}
    for (_, direction, memory), runs in sorted(bare.items()):
        values = runs[-1]
        ceilings[(direction, memory)] = values["gbps"]
        lines.append(f"| bare {direction} {memory} | {size_text(int(values.get('bytes', 0)))} | {fmt(values['gbps'])} | "
                     f"{fmt(values.get('rw_gbps'))} |")
    copy_report = os.path.join(base, "copy_perf.json")
    if os.path.exists(copy_report):
        rows = collbench_rows(collbench, [copy_report])
        largest = max((row["bytes"] for row in rows), default=0)
        lines += ["", f"copy_perf at its largest size ({size_text(largest)}), uni-directional:", "",
                  "| mode | memory | engine | GB/s | ceiling GB/s | ratio |", "|---|---|---|---|---|---|"]
        for row in rows:
            if row["bytes"] != largest or row.get("direction") != "uni":
                continue
            memory = "device" if row["mode"] == "d2d" else row["memory"]
            ceiling = ceilings.get((row["mode"], memory))
            lines.append(f"| {row['mode']} | {row['memory']} | {row['engine']} | {fmt(row['gbps'])} | {fmt(ceiling)} | "
                         f"{fmt(row['gbps'] / ceiling if ceiling else None, 3)} |")
    membw_report = os.path.join(base, "membw.json")
    if os.path.exists(membw_report):
        ceiling = ceilings.get(("d2d", "device"))
        ceiling_rw = 2 * ceiling if ceiling else None
        lines += ["", "membw_perf (STREAM counting) against the d2d copy's read+write GB/s:", "",
                  "| kernel | bytes per array | GB/s | ceiling GB/s | ratio |", "|---|---|---|---|---|"]
        for row in collbench_rows(collbench, [membw_report]):
            lines.append(f"| {row['kernel']} | {size_text(row['bytes'])} | {fmt(row['gbps'])} | {fmt(ceiling_rw)} | "
                         f"{fmt(row['gbps'] / ceiling_rw if ceiling_rw else None, 3)} |")
    return lines


def capture_section(work, collbench):
    path = os.path.join(work, "capture", "all_reduce.json")
    if not os.path.exists(path):
        return []
    # NCCL's own estimate of each row's call (ncclGroupSimulateEnd), straight from the report.
    estimates = {}
    try:
        for raw in json.load(open(path)).get("results", []):
            if isinstance(raw, dict) and isinstance(raw.get("library_estimate_us"), (int, float)):
                estimates[(raw.get("bytes"), raw.get("placement"))] = float(raw["library_estimate_us"])
    except (OSError, ValueError):
        pass
    lines = ["## `--capture-algo` on all_reduce, with NCCL's own estimate (ncclGroupSimulateEnd)", "",
             "| size | placement | algorithm | time (µs) | NCCL estimate (µs) | estimate / time |", "|---|---|---|---|---|---|"]
    for row in collbench_rows(collbench, [path]):
        estimate = estimates.get((row["bytes"], row["placement"]))
        ratio = estimate / row["time_us"] if estimate is not None and row.get("time_us") else None
        lines.append(f"| {size_text(row['bytes'])} | {row['placement']} | {row['algorithm']} | {fmt(row['time_us'])} | "
                     f"{fmt(estimate)} | {fmt(ratio, 3)} |")
    return lines


def explain_section(work):
    """The explain step's explanations: each collective's busbw beside its expected-peak entry, and
    the GPUs and links the reports' NVML inventory holds (what picked the entry, or why the name did)."""
    path = os.path.join(work, "explain", "explain.json")
    if not os.path.exists(path):
        return []
    text = read(path)  # the command on its first line (gpu-verify.sh's run_logged), then the JSON
    try:
        explanations = json.JSONDecoder().raw_decode(text[text.index("{"):])[0]["explanations"]
    except (ValueError, KeyError) as error:
        return ["## Expected peaks (`collbench explain`)", "", f"explain/explain.json cannot be read: {error}"]
    lines = ["## Expected peaks (`collbench explain`)", ""]
    inventories = sorted({e.get("gpu_inventory") or "no NVML inventory in the report" for e in explanations})
    lines += [f"- GPUs of the host: {line}" for line in inventories] + [""]
    lines += ["| report | busbw GB/s | expected GB/s | of expected | verdict | entry | picked by | note |", "|---|---|---|---|---|---|---|---|"]
    for e in explanations:
        x = e["expected"]
        note = (x.get("pick_note") or x.get("missing") or "").replace("|", "/")
        lines.append(f"| {os.path.basename(e['report'])} | {fmt(e.get('busbw_gbps'), 3)} | {fmt(x.get('busbw_gbps'), 3)} | "
                     f"{fmt(100 * e['fraction'], 0) + ' %' if e.get('fraction') is not None else '–'} | {e['verdict']} | {x['path']} | "
                     f"{x.get('picked_by') or '–'} | {note} |")
    return lines


def timeout_section(work, collbench):
    lines = []
    logs = sorted(glob.glob(os.path.join(work, "timeout", "*.log")))
    if logs:
        lines += ["## `-T` with a stopped process", ""]
        for path in logs:
            verdicts = [line for line in read(path).splitlines() if line.startswith(("ok", "FAIL", "SIGSTOP", "STOP"))]
            lines.append(f"- {os.path.basename(path)}: " + ("; ".join(verdicts) if verdicts else "no verdict line (see the log)"))
    pairs = {}
    for setting in ("0", "60"):
        paths = sorted(glob.glob(os.path.join(work, "tflag", f"T{setting}-r*.json")))
        pairs[setting] = [row["time_us"] for row in collbench_rows(collbench, paths) if row["placement"] == "out"]
    if pairs["0"] and pairs["60"]:
        off, on = statistics.median(pairs["0"]), statistics.median(pairs["60"])
        lines += ["", "## `-T 60` against `-T 0` at 8 B (all_reduce, out of place)", "",
                  "| -T 0 µs | -T 60 µs | ratio | runs |", "|---|---|---|---|",
                  f"| {fmt(off, 3)} | {fmt(on, 3)} | {on / off:.3f} | {len(pairs['0'])} / {len(pairs['60'])} |"]
    return lines


def main(argv):
    args, collbench, low, high = [], "collbench", 0.98, 1.02
    i = 0
    while i < len(argv):
        if argv[i] in ("--collbench", "--low", "--high"):
            if i + 1 >= len(argv):
                fail(f"{argv[i]} needs a value")
            value = argv[i + 1]
            if argv[i] == "--collbench":
                collbench = value
            else:
                try:
                    number = float(value)
                except ValueError:
                    fail(f"{argv[i]} expects a number, not '{value}'")
                low, high = (number, high) if argv[i] == "--low" else (low, number)
            i += 2
        elif argv[i].startswith("-"):
            fail(f"unknown argument '{argv[i]}'")
        else:
            args.append(argv[i])
            i += 1
    if len(args) != 1:
        fail("expects one WORK_DIR (the verify/ folder gpu-verify.sh fills)")
    work = args[0]
    if not os.path.isdir(work) or not (os.path.exists(os.path.join(work, "steps.tsv")) or
                                       os.path.exists(os.path.join(work, "versions.txt"))):
        fail(f"{work} is not a gpu-verify folder (no steps.tsv or versions.txt)")
    versions_path = os.path.join(work, "versions.txt")
    versions = read(versions_path).splitlines() if os.path.exists(versions_path) else ["(no build phase on this machine)"]
    for path in sorted(glob.glob(os.path.join(work, "collectives", "*", "r*", "nccl-tests-*.txt")))[:1]:
        found = nccl_tests_version(read(path))
        if found:
            versions.append(f"nccl-tests run: version {found[0]}, nccl-headers={found[1]}, nccl-library={found[2]}")
    card = next((line.split(",")[1].strip() for line in versions if line.startswith("gpu: ") and "," in line), "no GPU")
    out = ["# GPU verification: collbench on " + card, "",
           "Made by scripts/gpu-verify-summary.py from gpu-verify.tar.gz; every figure below comes from that card alone.", "",
           "## Versions", ""] + [f"- {line}" for line in versions] + [""]
    preflight_path = os.path.join(work, "preflight.txt")
    if os.path.exists(preflight_path):
        # What the machine had when the last phase began (gpu-verify.sh's first step).
        out += ["## What the machine has (preflight)", ""] + [f"- {line}" for line in read(preflight_path).splitlines()] + [""]
    out += steps_section(work) + [""]
    try:
        out += test_section(work, collbench) + [""]
        total_outside = 0
        for variant in ("plain", "graph", "registered"):
            lines, outside = side_by_side_section(work, collbench, variant, low, high)
            out += lines
            total_outside += outside
        out += run_times_section(work) + [""]
        out += compute_section(work, collbench) + [""]
        out += copy_section(work, collbench) + [""]
        out += capture_section(work, collbench) + [""]
        out += timeout_section(work, collbench) + [""]
        out += explain_section(work) + [""]
    except (OSError, ValueError, KeyError) as error:
        fail(f"cannot read the results: {error}")
    if UNREADABLE:
        out += ["## Reports collbench could not read", ""]
        out += [f"- {os.path.relpath(path, work)}: {message}" for path, message in UNREADABLE] + [""]
    print("\n".join(out).rstrip() + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
