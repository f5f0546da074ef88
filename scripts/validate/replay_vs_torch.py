#!/usr/bin/env python3
"""Helpers of scripts/validate/replay_vs_torch.sh (issue 61): the job's own calls against what
replay_perf replays, a comm-only torch.distributed reference loop over the same sequence, and the
timing comparison.

  sequence  --listing L --world W (--calls-prefix P | --ddp-expected F)
            the job's calls on every rank (P.rank<R>.calls.json, written by the job itself through
            torch.distributed's functions; DDP's from the bucket sizes DDP reports, F) against
            `replay_read_trace --calls` of its trace (L): collective, count, dtype and group size in
            order, per rank; prints the share that matches and exits 1 below 100 %.
  reference --listing L --world W --passes N [--io-thread default|batch] --out F
            a comm-only loop in torch.distributed (gloo, one process per rank): each rank issues its
            calls of L in order, a run of consecutive sends and receives posted together
            (isend/irecv) as replay_perf posts them, each call timed on the host with its wait; N
            passes after one untimed. F: per (collective, size bucket, dtype, group size) the calls
            and the time per call, each pass's mean per rank, the slowest rank's, then the median
            over passes; and torch's own cost of a call that moves nothing (dispatch_us: a one-rank
            group's all_reduce, the median of 200, the slowest rank's: Python, ProcessGroupGloo's work
            queue, its worker thread and back).
            --io-thread batch puts torch's gloo I/O threads under SCHED_BATCH, as replay_perf puts its
            own (src/backends/gloo/io_thread.h). No real torch job does that; it is the like-for-like
            reference for collbench's gloo, since with torch's default a woken I/O thread preempts the
            other rank's worker on 2 cores and both spin until the 4 ms scheduler tick
            (results/replay/2026-12-07-torch/README.md; gloo_torch_allreduce.py shows it alone).
  compare   --replay R.json --reference F [--reference-batch F2] --out CSV
            per bucket: replay_perf's time per call (each cycle's p50, the median over cycles)
            against the reference's (torch as a job runs it, F) and, given, the --io-thread batch
            one (F2); the ratios, and whether each is within 15 % (judged at 64 KiB and up, the
            issue's target; below that the per-call overhead difference is named: what torch's I/O
            thread stalls cost (F - F2), and torch's dispatch of a call).
  gaps      --report G.json --listing L --steps-prefix P
            the --gaps trace replay (G) beside the job: the job's steps' wall time (P.rank<R>.steps.json,
            written by the job) broken down, on the rank with the longest span of calls, into the
            time outside its calls' span, its calls' own time, the idle gaps the trace recorded and
            the overlap (calls in flight at once); the replay's pass into the gaps it slept and its
            calls' time; and the difference into those parts.
"""
import argparse
import csv
import json
import os
import socket
import statistics
import sys
import time
from collections import defaultdict

POINT_TO_POINT = ("send", "recv")


def read_listing(path, times=False):
    """Per rank, its calls (collective, count, dtype, group, payload, peer); with times, each call's
    (start_us, duration_us, gap_us) from the trace instead, None where it has none."""
    by_rank = defaultdict(list)
    for line in open(path):
        words = line.split()
        if words and words[0] == "call":
            rank = int(words[1])
            if times:
                by_rank[rank].append(tuple(None if word == "-" else float(word) for word in words[8:11]))
            else:
                collective, count, dtype, group, payload, peer = words[2], int(words[3]), words[4], int(words[5]), int(words[6]), int(words[7])
                by_rank[rank].append((collective, count, dtype, group, payload, peer))
    return by_rank


def bucket_key(call):
    collective, _, dtype, group, payload, _ = call
    payload = 0 if collective == "barrier" else payload
    size = 0 if payload == 0 else 1 << (payload.bit_length() - 1)
    return (collective, size, dtype, 2 if collective in POINT_TO_POINT else group)


def sequence(args):
    listing = read_listing(args.listing)
    total = matched = 0
    for rank in range(args.world):
        if args.ddp_expected:
            ddp = json.load(open(args.ddp_expected))
            job = [("all_reduce", size // 4, "float32", args.world) for size in ddp["rebuilt_bucket_sizes"]] * ddp["steps"]
        else:
            job = [(c, n, d, g) for c, n, d, g, _ in json.load(open(f"{args.calls_prefix}.rank{rank}.calls.json"))]
        replayed = [(c, n, d, g) for c, n, d, g, _, _ in listing.get(rank, [])]
        total += max(len(job), len(replayed))
        matched += sum(1 for a, b in zip(job, replayed) if a == b)
        if job != replayed:
            print(f"rank {rank}: the job issued {job[:6]}... , the trace replays {replayed[:6]}...")
    share = 100.0 * matched / total if total else 0.0
    print(f"sequence: {share:.1f} % ({matched} of {total} calls: collective, count, dtype and group size, in order, every rank)")
    return 0 if total and matched == total else 1


def reference_rank(rank, world, port, args, queue):
    import torch
    import torch.distributed as dist
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    alone = [dist.new_group([one]) for one in range(world)][rank]  # every rank makes every group
    if args.io_thread == "batch":
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from gloo_torch_allreduce import batch_io_threads
        if batch_io_threads() == 0:
            sys.exit("reference: no gloo I/O thread (gloo_tcp_loop) in this torch to put under SCHED_BATCH")
    dtypes = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16, "bfloat16": torch.bfloat16,
              "int32": torch.int32, "int64": torch.int64}
    calls = read_listing(args.listing).get(rank, [])
    steps = []  # (keys, function): a collective, or a run of sends and receives posted together
    index = 0
    while index < len(calls):
        collective, count, dtype, group, _, peer = calls[index]
        if collective in POINT_TO_POINT:
            run = []
            while index < len(calls) and calls[index][0] in POINT_TO_POINT:
                run.append(calls[index])
                index += 1
            tensors = [torch.ones(c[1], dtype=dtypes[c[2]]) for c in run]

            def exchange(run=run, tensors=tensors):
                ops = [dist.P2POp(dist.isend if c[0] == "send" else dist.irecv, t, c[5]) for c, t in zip(run, tensors)]
                for request in dist.batch_isend_irecv(ops):
                    request.wait()
            steps.append(([bucket_key(c) for c in run], exchange))
            continue
        if group != world:
            sys.exit(f"reference: a call on a group of {group} of {world}: this loop runs the world's group only")
        data = torch.ones(count, dtype=dtypes[dtype])
        if collective == "all_reduce":
            function = lambda data=data: dist.all_reduce(data)
        elif collective == "broadcast":
            function = lambda data=data, peer=peer: dist.broadcast(data, src=max(peer, 0))
        elif collective == "all_gather":
            out = torch.empty(count * world, dtype=dtypes[dtype])
            function = lambda data=data, out=out: dist.all_gather_into_tensor(out, data)
        elif collective == "reduce_scatter":
            big = torch.ones(count * world, dtype=dtypes[dtype])
            function = lambda data=data, big=big: dist.reduce_scatter_tensor(data, big)
        elif collective == "barrier":
            function = dist.barrier
        else:
            sys.exit(f"reference: {collective} is not in this loop")
        steps.append(([bucket_key(calls[index])], function))
        index += 1
    per_pass = []
    for repetition in range(args.passes + 1):
        dist.barrier()
        sums, counts = defaultdict(float), defaultdict(int)
        for keys, function in steps:
            start = time.perf_counter()
            function()
            elapsed = (time.perf_counter() - start) * 1e6
            for key in keys:
                sums[key] += elapsed / len(keys)
                counts[key] += 1
        if repetition > 0:
            per_pass.append({json.dumps(key): sums[key] / counts[key] for key in sums})
    one = torch.ones(1)
    dispatch = []
    for _ in range(220):
        start = time.perf_counter()
        dist.all_reduce(one, group=alone)
        dispatch.append((time.perf_counter() - start) * 1e6)
    queue.put((rank, per_pass, {json.dumps(key): n for key, n in counts.items()}, statistics.median(dispatch[20:])))
    dist.barrier()
    dist.destroy_process_group()


def reference(args):
    import torch.multiprocessing as mp
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    context = mp.get_context("spawn")
    queue = context.Queue()
    processes = [context.Process(target=reference_rank, args=(rank, args.world, port, args, queue)) for rank in range(args.world)]
    for process in processes:
        process.start()
    results = [queue.get(timeout=600) for _ in processes]
    for process in processes:
        process.join()
    buckets = {}
    for key in {key for _, passes, _, _ in results for key in passes[0]}:
        slowest = [max(passes[p].get(key, 0.0) for _, passes, _, _ in results) for p in range(args.passes)]
        calls = sum(counts.get(key, 0) for _, _, counts, _ in results)
        collective, _, _, group = json.loads(key)
        issuers = 1 if collective in POINT_TO_POINT else group
        buckets[key] = {"calls": calls // issuers, "per_call_us": statistics.median(slowest), "passes_us": slowest}
    json.dump({"listing": args.listing, "world": args.world, "passes": args.passes, "io_thread": args.io_thread,
               "dispatch_us": max(dispatch for _, _, _, dispatch in results), "buckets": buckets}, open(args.out, "w"), indent=1)
    return 0


def verdict(replayed, torch_us, judged):
    if not torch_us:
        return "no reference"
    if judged:
        return "within 15 %" if abs(replayed / torch_us - 1) <= 0.15 else "outside 15 %"
    return "below 64 KiB: per-call overhead, difference %+.2f us" % (replayed - torch_us)


def compare(args):
    report = json.load(open(args.replay))
    default = json.load(open(args.reference))
    batch = json.load(open(args.reference_batch)) if args.reference_batch else None
    cycles = defaultdict(list)
    for row in report["results"]:
        if row["collective"] != "sequence":
            cycles[json.dumps([row["collective"], row["bytes"], row["dtype"], row["group_size"]])].append(row["time_us"]["p50"])
    rows = []
    for key, p50s in sorted(cycles.items()):
        replayed = statistics.median(p50s)
        collective, size, dtype, group = json.loads(key)
        judged = size >= 64 * 1024
        row = {"collective": collective, "bucket_bytes": size, "dtype": dtype, "group_size": group, "replay_us": f"{replayed:.2f}"}
        for label, reference in (("torch", default), ("torch_io_batch", batch)):
            if reference is None:
                continue
            torch_us = reference["buckets"].get(key, {}).get("per_call_us")
            row[f"{label}_us"] = f"{torch_us:.2f}" if torch_us else ""
            row[f"ratio_{label}"] = f"{replayed / torch_us:.3f}" if torch_us else ""
            row[f"verdict_{label}"] = verdict(replayed, torch_us, judged)
        if batch is not None and not judged:
            stalls = default["buckets"].get(key, {}).get("per_call_us", 0) - batch["buckets"].get(key, {}).get("per_call_us", 0)
            row["named"] = (f"torch's I/O-thread stalls {stalls:+.0f} us a call (default - batch); torch's dispatch of a call "
                            f"{batch.get('dispatch_us', 0):.0f} us (one-rank group); the rest is the exchange itself")
        rows.append(row)
    with open(args.out, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else ["collective"], extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    for row in rows:
        print(" ".join(f"{k}={v}" for k, v in row.items()))
    return 0


def gaps(args):
    report = json.load(open(args.report))
    sequence = [row for row in report["results"] if row["collective"] == "sequence"]
    pass_us = statistics.median(row["time_us"]["p50"] for row in sequence)
    calls_us = statistics.median(row["total_us"] for row in sequence)
    slept_us = sequence[0].get("gap_us", 0.0)
    times = read_listing(args.listing, times=True)

    def job_of(rank):
        calls = [call for call in times[rank] if call[0] is not None]
        first = min(start for start, _, _ in calls)
        last = max(start + (duration or 0.0) for start, duration, _ in calls)
        steps = json.load(open(f"{args.steps_prefix}.rank{rank}.steps.json"))
        per_step = len(calls) // len(steps) if steps and len(calls) % len(steps) == 0 else 0
        by_step = [sum(duration or 0.0 for _, duration, _ in calls[i:i + per_step]) for i in range(0, len(calls), per_step)] if per_step else []
        return {"rank": rank, "span": last - first, "calls": sum(duration or 0.0 for _, duration, _ in calls), "calls_by_step": by_step,
                "gaps": sum(gap or 0.0 for _, _, gap in calls), "steps_us": [s * 1e6 for s in steps]}

    job = max((job_of(rank) for rank in times), key=lambda j: j["span"])
    steps_us = sum(job["steps_us"])
    outside = steps_us - job["span"]
    overlap = job["calls"] + job["gaps"] - job["span"]
    ms = lambda us: f"{(us if abs(us) >= 5 else 0.0) / 1e3:.2f} ms"  # a residual under 5 us is rounding
    print(f"--gaps trace: the replayed sequence {ms(pass_us)} a pass against the job's {len(job['steps_us'])} steps "
          f"{ms(steps_us)} (rank {job['rank']}, each step's wall time in the profiler: "
          + ", ".join(ms(us) for us in job["steps_us"]) + ")")
    print(f"  job: steps {ms(steps_us)} = outside its calls' span {ms(outside)} (compute before the first call and after the "
          f"last) + its calls {ms(job['calls'])} + the idle gaps it recorded {ms(job['gaps'])} - overlap {ms(overlap)} "
          f"(calls in flight at once: a call started before the previous one ended)")
    if job["calls_by_step"]:
        print("  the job's calls by step: " + ", ".join(ms(us) for us in job["calls_by_step"]) +
              " (where the first is larger, its first call waited inside for the other ranks, which start their "
              "profilers at their own times)")
    print(f"  replay: pass {ms(pass_us)} = the gaps it slept {ms(slept_us)} (the slowest rank's) + calls and the rest "
          f"{ms(pass_us - slept_us)} (its calls' own time per pass {ms(calls_us)}, the slowest rank's: a rank that slept less "
          f"waits inside the call for the others)")
    print(f"  difference job - replay {ms(steps_us - pass_us)} = outside the span {ms(outside)} + the job's calls less the "
          f"replay's {ms(job['calls'] - (pass_us - slept_us))} - overlap {ms(overlap)} + recorded less slept gaps "
          f"{ms(job['gaps'] - slept_us)}")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("sequence")
    p.add_argument("--listing", required=True)
    p.add_argument("--world", type=int, required=True)
    p.add_argument("--calls-prefix")
    p.add_argument("--ddp-expected")
    p = sub.add_parser("reference")
    p.add_argument("--listing", required=True)
    p.add_argument("--world", type=int, required=True)
    p.add_argument("--passes", type=int, default=10)
    p.add_argument("--io-thread", choices=("default", "batch"), default="default")
    p.add_argument("--out", required=True)
    p = sub.add_parser("compare")
    p.add_argument("--replay", required=True)
    p.add_argument("--reference", required=True)
    p.add_argument("--reference-batch")
    p.add_argument("--out", required=True)
    p = sub.add_parser("gaps")
    p.add_argument("--report", required=True)
    p.add_argument("--listing", required=True)
    p.add_argument("--steps-prefix", required=True)
    args = parser.parse_args()
    return {"sequence": sequence, "reference": reference, "compare": compare, "gaps": gaps}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
