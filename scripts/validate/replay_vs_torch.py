#!/usr/bin/env python3
"""Helpers of scripts/validate/replay_vs_torch.sh (issue 61): the job's own calls against what
replay_perf replays, a comm-only torch.distributed reference loop over the same sequence, and the
timing comparison.

  sequence  --listing L --world W (--calls-prefix P | --ddp-expected F)
            the job's calls on every rank (P.rank<R>.calls.json, written by the job itself through
            torch.distributed's functions; DDP's from the bucket sizes DDP reports, F) against
            `replay_read_trace --calls` of its trace (L): collective, count, dtype and group size in
            order, per rank; prints the share that matches and exits 1 below 100 %.
  reference --listing L --world W --passes N --out F
            a comm-only loop in torch.distributed (gloo, one process per rank): each rank issues its
            calls of L in order, a run of consecutive sends and receives posted together
            (isend/irecv) as replay_perf posts them, each call timed on the host with its wait; N
            passes after one untimed. F: per (collective, size bucket, dtype, group size) the calls
            and the time per call, each pass's mean per rank, the slowest rank's, then the median
            over passes.
  compare   --replay R.json --reference F --out CSV
            per bucket: replay_perf's time per call (each cycle's p50, the median over cycles)
            against the reference's; the ratio, and whether it is within 15 % (judged at 64 KiB and
            up, the issue's target; below that the per-call overhead difference is named).
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


def read_listing(path):
    by_rank = defaultdict(list)
    for line in open(path):
        words = line.split()
        if words and words[0] == "call":
            rank, collective, count, dtype, group, payload, peer = int(words[1]), words[2], int(words[3]), words[4], int(words[5]), int(words[6]), int(words[7])
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
    queue.put((rank, per_pass, {json.dumps(key): n for key, n in counts.items()}))
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
    for key in {key for _, passes, _ in results for key in passes[0]}:
        slowest = [max(passes[p].get(key, 0.0) for _, passes, _ in results) for p in range(args.passes)]
        calls = sum(counts.get(key, 0) for _, _, counts in results)
        collective, _, _, group = json.loads(key)
        issuers = 1 if collective in POINT_TO_POINT else group
        buckets[key] = {"calls": calls // issuers, "per_call_us": statistics.median(slowest), "passes_us": slowest}
    json.dump({"listing": args.listing, "world": args.world, "passes": args.passes, "buckets": buckets}, open(args.out, "w"), indent=1)
    return 0


def compare(args):
    report = json.load(open(args.replay))
    reference_buckets = json.load(open(args.reference))["buckets"]
    cycles = defaultdict(list)
    for row in report["results"]:
        if row["collective"] != "sequence":
            cycles[json.dumps([row["collective"], row["bytes"], row["dtype"], row["group_size"]])].append(row["time_us"]["p50"])
    rows = []
    for key, p50s in sorted(cycles.items()):
        replayed = statistics.median(p50s)
        torch_us = reference_buckets.get(key, {}).get("per_call_us")
        ratio = replayed / torch_us if torch_us else None
        collective, size, dtype, group = json.loads(key)
        judged = size >= 64 * 1024
        rows.append({"collective": collective, "bucket_bytes": size, "dtype": dtype, "group_size": group,
                     "replay_us": f"{replayed:.2f}", "torch_us": f"{torch_us:.2f}" if torch_us else "",
                     "ratio": f"{ratio:.3f}" if ratio else "",
                     "verdict": ("within 15 %" if ratio and abs(ratio - 1) <= 0.15 else "outside 15 %") if judged and ratio
                     else ("below 64 KiB: per-call overhead, difference %+.2f us" % (replayed - torch_us) if torch_us else "no reference")})
    with open(args.out, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else ["collective"])
        writer.writeheader()
        writer.writerows(rows)
    for row in rows:
        print(" ".join(f"{k}={v}" for k, v in row.items()))
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
    p.add_argument("--out", required=True)
    p = sub.add_parser("compare")
    p.add_argument("--replay", required=True)
    p.add_argument("--reference", required=True)
    p.add_argument("--out", required=True)
    args = parser.parse_args()
    return {"sequence": sequence, "reference": reference, "compare": compare}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
