#!/usr/bin/env python3
"""Compares collbench model's predictions with the runs scripts/validate/model_on_cluster.sh measured.

Fits each collective from the fit runs (collbench model fit), predicts the 8-rank runs at the fit's
link and at the new link (collbench model predict), the DDP step (collbench model ddp), and writes
DIR/tables.md, DIR/summary.json, DIR/models/ and, where gnuplot is there, DIR/plots/*.png.

Every run's figure per size is its row's p10 time (the figure the model fits); a setting's measured
value is the median over its repeated runs, with their lowest and highest beside it. Relative error
= predicted / measured - 1. A size counts towards the targets where the link dominates: the shaped
run's median is at least LINK_FACTOR times the same run over the plain (unshaped) link.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

COLLECTIVES = ["all_reduce-ring", "all_reduce-recursive_doubling", "broadcast-binomial", "broadcast-binomial-max", "alltoall-pairwise"]
FIT_CONFIGS = ["np2-1host", "np2-2hosts", "np4-4hosts"]
PREDICT_CONFIG = "np8-4hosts"
NP, PER_HOST = 8, 2
LINK_FACTOR = 5.0
TARGET_MEDIAN, TARGET_WORST, TARGET_DDP = 15.0, 35.0, 20.0


def run(command):
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"model_compare: {' '.join(map(str, command))} exited {done.returncode}: {done.stderr.strip()}")
    return done.stdout


def reports(folder, name):
    return sorted(Path(folder).glob(f"{name}-r*.json"))


def p10_by_size(paths):
    """{bytes: [p10 of each run]} over collective reports (out-of-place rows)."""
    by_size = {}
    for path in paths:
        for row in json.loads(path.read_text())["results"]:
            if "time_us" not in row or row.get("placement", "out") != "out":
                continue
            by_size.setdefault(row["bytes"], []).append(row["time_us"]["p10"])
    return by_size


def spread(values):
    return statistics.median(values), min(values), max(values)


def human(size):
    for unit, factor in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= factor and size % factor == 0:
            return f"{size // factor} {unit}"
    return f"{size} B"


def ms(us):
    return f"{us / 1000:.2f}" if us < 100000 else f"{us / 1000:.0f}"


def predict(collbench, model, sizes, extra):
    out = run([collbench, "model", "predict", model, "--np", str(NP), "--ranks-per-host", str(PER_HOST),
               "--sizes", ",".join(map(str, sizes)), "--format", "json", *extra])
    rows = json.loads(out)["tables"][0]["rows"]
    return {row["bytes"]: row for row in rows}


def error_summary(errors):
    absolute = [abs(e) for e in errors]
    return {"sizes": len(absolute), "median_abs_pct": statistics.median(absolute) if absolute else None,
            "worst_abs_pct": max(absolute) if absolute else None}


def verdict(summary):
    if not summary["sizes"]:
        return "no size where the link dominates"
    ok = summary["median_abs_pct"] <= TARGET_MEDIAN and summary["worst_abs_pct"] <= TARGET_WORST
    return ("met" if ok else "missed") + f" (median {summary['median_abs_pct']:.1f} %, worst {summary['worst_abs_pct']:.1f} %)"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", required=True)
    parser.add_argument("--collbench", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--fit-delay-ms", type=float, required=True)
    parser.add_argument("--new-delay-ms", type=float, required=True)
    parser.add_argument("--buckets", default="0.5,1,4")
    args = parser.parse_args()
    runs, out = Path(args.runs), Path(args.out)
    fit_link, new_link = f"delay{args.fit_delay_ms:g}ms", f"delay{args.new_delay_ms:g}ms"
    (out / "models").mkdir(parents=True, exist_ok=True)
    summary = {"collectives": {}, "ddp": {}}
    md = []
    plot_data = {}

    for name in COLLECTIVES:
        fit_inputs = [p for config in FIT_CONFIGS for p in reports(runs / fit_link / config, name)]
        model = out / "models" / f"{name}.json"
        fit_text = run([args.collbench, "model", "fit", *map(str, fit_inputs), "--out", str(model)])
        (out / "models" / f"{name}-fit.txt").write_text(fit_text)
        # The same fit without the one-host run: one rank per host only, as the issue words it.
        strict_inputs = [p for config in FIT_CONFIGS[1:] for p in reports(runs / fit_link / config, name)]
        strict = out / "models" / f"{name}-one-per-host.json"
        run([args.collbench, "model", "fit", *map(str, strict_inputs), "--out", str(strict)])
        fitted = json.loads(model.read_text())["series"][0]["across_world_sizes"]
        inter_alpha = fitted["inter_alpha_us"][0]
        measured = {link: p10_by_size(reports(runs / link / PREDICT_CONFIG, name)) for link in (fit_link, new_link)}
        plain = p10_by_size(reports(runs / "plain" / PREDICT_CONFIG, name))
        sizes = sorted(measured[fit_link])
        # The new link: the fitted per-step latency between hosts scaled by the ratio of the delays
        # (what the shaped link adds per step is its delay); the naive reading passes the new delay.
        scaled_alpha = inter_alpha * args.new_delay_ms / args.fit_delay_ms
        predictions = {
            fit_link: predict(args.collbench, str(model), sizes, []),
            new_link: predict(args.collbench, str(model), sizes, ["--inter-latency", f"{scaled_alpha:.3f}us"]),
        }
        naive = predict(args.collbench, str(model), sizes, ["--inter-latency", f"{args.new_delay_ms:g}ms"])
        strict_prediction = predict(args.collbench, str(strict), sizes, [])
        entry = {"fitted_inter_alpha_us": inter_alpha, "fitted_inter_beta_gbps": fitted["inter_beta_gbps"][0],
                 "fitted_intra_alpha_us": fitted["alpha_us"][0], "form": fitted["form"], "links": {}}
        md.append(f"### {name} at {NP} ranks, {PER_HOST} per host on 4 hosts\n")
        md.append(f"Fit: {fitted['form']} form; between hosts alpha {inter_alpha / 1000:.2f} ms, beta "
                  f"{fitted['inter_beta_gbps'][0] * 1000:.2f} MB/s; within a host alpha {fitted['alpha_us'][0]:.0f} us, beta "
                  f"{fitted['beta_gbps'][0]:.2f} GB/s (intervals: `models/{name}-fit.txt`).\n")
        md.append(f"| size | plain link ms | {fit_link}: measured ms (min–max) | predicted ms [95 %] | error | "
                  f"{new_link}: measured ms (min–max) | predicted ms [95 %] | error | naive `--inter-latency {args.new_delay_ms:g}ms` | "
                  f"one-per-host fit, {fit_link} |")
        md.append("|---|---|---|---|---|---|---|---|---|---|")
        errors = {fit_link: [], new_link: []}
        naive_errors, strict_errors = [], []
        for size in sizes:
            cells = [human(size)]
            plain_median = spread(plain[size])[0] if size in plain else None
            cells.append(ms(plain_median) if plain_median is not None else "n/a")
            for link in (fit_link, new_link):
                if size not in measured[link]:
                    cells += ["n/a", "n/a", "n/a"]
                    continue
                median, low, high = spread(measured[link][size])
                prediction = predictions[link][size]
                error = 100 * (prediction["time_us"] / median - 1)
                dominates = plain_median is not None and median >= LINK_FACTOR * plain_median
                if dominates:
                    errors[link].append(error)
                if link == new_link:
                    naive_error = 100 * (naive[size]["time_us"] / median - 1)
                    if dominates:
                        naive_errors.append(naive_error)
                else:
                    strict_error = 100 * (strict_prediction[size]["time_us"] / median - 1)
                    if dominates:
                        strict_errors.append(strict_error)
                mark = "" if dominates else " (not link-bound)"
                cells += [f"{ms(median)} ({ms(low)}–{ms(high)})",
                          f"{ms(prediction['time_us'])} [{ms(prediction['low_us'])}–{ms(prediction['high_us'])}]",
                          f"{error:+.1f} %{mark}"]
                plot_data.setdefault(name, {}).setdefault(link, []).append(
                    (size, median, low, high, prediction["time_us"], prediction["low_us"], prediction["high_us"]))
            cells.append(f"{100 * (naive[size]['time_us'] / spread(measured[new_link][size])[0] - 1):+.1f} %"
                         if size in measured[new_link] else "n/a")
            cells.append(f"{100 * (strict_prediction[size]['time_us'] / spread(measured[fit_link][size])[0] - 1):+.1f} %")
            md.append("| " + " | ".join(cells) + " |")
        for link in (fit_link, new_link):
            entry["links"][link] = error_summary(errors[link])
        entry["naive_new_link"] = error_summary(naive_errors)
        entry["one_per_host_fit"] = error_summary(strict_errors)
        summary["collectives"][name] = entry
        md.append("")
        md.append(f"Targets (median ≤ {TARGET_MEDIAN:g} %, worst ≤ {TARGET_WORST:g} %, over the sizes where the link dominates): "
                  f"{fit_link} {verdict(entry['links'][fit_link])}; {new_link} {verdict(entry['links'][new_link])}. "
                  f"Naive new link: {verdict(entry['naive_new_link'])}. One-per-host fit: {verdict(entry['one_per_host_fit'])}.\n")

    # DDP: each fit-link ddp report at 2 ranks gives compute and gradients; the ring fit gives the buckets.
    ring = out / "models" / "all_reduce-ring.json"
    ddp_inputs = reports(runs / fit_link / "np2-2hosts", "ddp-ring")
    predicted = {}
    for path in ddp_inputs:
        text = run([args.collbench, "model", "ddp", str(ring), str(path), "--np", str(NP), "--ranks-per-host", str(PER_HOST),
                    "--bucket-mb", args.buckets, "--format", "json"])
        for row in json.loads(text)["tables"][0]["rows"]:
            predicted.setdefault(float(row["bucket_mb"]), []).append(row)
    (out / "models" / "ddp-predict.txt").write_text(run(
        [args.collbench, "model", "ddp", str(ring), str(ddp_inputs[0]), "--np", str(NP), "--ranks-per-host", str(PER_HOST),
         "--bucket-mb", args.buckets]))
    measured_steps = {}
    for path in reports(runs / fit_link / PREDICT_CONFIG, "ddp-ring"):
        for row in json.loads(path.read_text())["results"]:
            if row.get("kind") == "ddp_step":
                measured_steps.setdefault(float(row["bucket_mb"]), []).append((row["time_us"]["p10"], row["time_us"]["mean"], row["buckets"]))
    md.append(f"### DDP step (ddp_step_perf, `scripts/validate/ddp_model.csv`, ring all-reduce) at {NP} ranks, {PER_HOST} per host, {fit_link}\n")
    md.append("| bucket cap | buckets measured / modelled | measured step ms, p10 (min–max) | measured mean ms | predicted ms [ends] | error |")
    md.append("|---|---|---|---|---|---|")
    ddp_errors = []
    for bucket in sorted(predicted):
        rows = predicted[bucket]
        step = statistics.median(r["step_us"] for r in rows)
        low = statistics.median(r["step_low_us"] for r in rows)
        high = statistics.median(r["step_high_us"] for r in rows)
        runs_here = measured_steps.get(bucket, [])
        if not runs_here:
            continue
        median, lo, hi = spread([r[0] for r in runs_here])
        mean = statistics.median(r[1] for r in runs_here)
        error = 100 * (step / median - 1)
        ddp_errors.append(abs(error))
        summary["ddp"][f"{bucket:g}"] = {"predicted_us": step, "measured_p10_us": median, "error_pct": error}
        md.append(f"| {bucket:g} MiB | {runs_here[0][2]} / {rows[0]['buckets']} | {ms(median)} ({ms(lo)}–{ms(hi)}) | {ms(mean)} | "
                  f"{ms(step)} [{ms(low)}–{ms(high)}] | {error:+.1f} % |")
    if summary["ddp"]:
        best_measured = min(summary["ddp"], key=lambda b: summary["ddp"][b]["measured_p10_us"])
        best_predicted = min(summary["ddp"], key=lambda b: summary["ddp"][b]["predicted_us"])
        worst = max(ddp_errors)
        summary["ddp_verdict"] = {"worst_abs_pct": worst, "best_measured": best_measured, "best_predicted": best_predicted}
        md.append("")
        md.append(f"Target (error ≤ {TARGET_DDP:g} % and the same best bucket cap): worst error {worst:.1f} % "
                  f"({'met' if worst <= TARGET_DDP else 'missed'}); best cap measured {best_measured} MiB, predicted "
                  f"{best_predicted} MiB ({'same' if best_measured == best_predicted else 'different'}).\n")

    write_runs_csv(runs, out / "runs.csv")
    (out / "tables.md").write_text("\n".join(md) + "\n")
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    plot(out, plot_data, fit_link, new_link)
    print("\n".join(md))


def write_runs_csv(runs, path):
    """Every run's figures per row, one line each (the reports themselves hold machine paths)."""
    lines = ["link,config,benchmark,rep,ranks,hosts,bytes,bucket_mb,p10_us,p50_us,mean_us,min_us,max_us,iterations,algorithm,time_aggregation"]
    for report in sorted(runs.glob("*/*/*-r*.json")):
        link, config = report.parent.parent.name, report.parent.name
        benchmark, rep = report.stem.rsplit("-r", 1)
        document = json.loads(report.read_text())
        context = document["context"]
        hosts = len({rank["host"] for rank in context.get("ranks", [])}) or len(context.get("hosts", []))
        for row in document["results"]:
            if "time_us" not in row:
                continue
            t = row["time_us"]
            lines.append(",".join(str(v) for v in (
                link, config, benchmark, rep, context["world_size"], hosts, row.get("bytes", ""), row.get("bucket_mb", ""),
                f"{t['p10']:.1f}", f"{t['p50']:.1f}", f"{t['mean']:.1f}", f"{t['min']:.1f}", f"{t['max']:.1f}",
                row.get("iterations", ""), row.get("algorithm", ""), row.get("time_aggregation", ""))))
    path.write_text("\n".join(lines) + "\n")


def plot(out, plot_data, fit_link, new_link):
    """Measured (median, min-max bars) and predicted (line, 95 % band) time against size, per collective."""
    if not shutil.which("gnuplot"):
        print("model_compare: no gnuplot, no plots", file=sys.stderr)
        return
    folder = out / "plots"
    folder.mkdir(exist_ok=True)
    for name, links in plot_data.items():
        script = [f"set terminal pngcairo size 900,600 font ',10' noenhanced", f"set output '{folder / (name + '.png')}'",
                  "set logscale xy", "set xlabel 'bytes'", "set ylabel 'time (ms)'", "set key top left",
                  f"set title '{name}: {NP} ranks, {PER_HOST} per host, measured (median, min-max of runs) vs predicted'"]
        plots = []
        for index, link in enumerate((fit_link, new_link)):
            data = folder / f"{name}-{link}.dat"
            data.write_text("".join(f"{s} {m / 1e3} {lo / 1e3} {hi / 1e3} {p / 1e3} {plo / 1e3} {phi / 1e3}\n"
                                    for s, m, lo, hi, p, plo, phi in links.get(link, [])))
            color = ["#1f77b4", "#d62728"][index]
            plots += [f"'{data}' using 1:6:7 with filledcurves lc rgb '{color}' fs transparent solid 0.15 title '{link} predicted 95 %'",
                      f"'{data}' using 1:5 with lines lc rgb '{color}' lw 2 title '{link} predicted'",
                      f"'{data}' using 1:2:3:4 with yerrorbars pt 7 lc rgb '{color}' title '{link} measured'"]
        script.append("plot " + ", ".join(plots))
        subprocess.run(["gnuplot"], input="\n".join(script) + "\n", text=True, check=False)
        for link in (fit_link, new_link):
            (folder / f"{name}-{link}.dat").unlink(missing_ok=True)


if __name__ == "__main__":
    main()
