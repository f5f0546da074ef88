#!/usr/bin/env python3
"""Checks a replay_perf report against the trace it replayed (issue 61).

usage: check_replay_report.py REPORT LISTING --backend NAME --cycles N [--ddp-expected FILE]
                              [--scale M [--scale-counts per-rank|total]]

LISTING is `replay_read_trace --calls` of the same files: one line per call and rank
("call RANK COLLECTIVE COUNT DTYPE GROUP_SIZE PAYLOAD_BYTES PEER", then the trace's times). From it the rows are worked out
here, independently of replay_perf's own bucketing: per (collective, size bucket [2^k, 2^(k+1))
bytes, dtype, group size; a send's or receive's group is its pair) the calls per pass (a
collective once for its group, a send or receive once for its rank) and their bytes. Every cycle
must have exactly these rows, and one sequence row with all of them; checked rows must have no
wrong elements; the bus bandwidth must follow nccl-tests' factor. --ddp-expected adds DDP's own
bucket sizes (ddp.expected.json, recorded from torch): one float32 all_reduce per bucket and step.
--scale M: the report replayed the trace at M ranks (replay_perf --scale, docs/replay.md), worked out
here from the recorded listing: each of the M ranks plays recorded rank r mod N; a call on a group of
all N ranks is on all M, with all_gather, reduce_scatter, alltoall, gather and scatter keeping each
rank's count (per-rank) or the whole buffer (total: ceil(count N / M) per rank); a smaller group's
calls and sends are replicated M / N times as they are.
"""
import argparse
import json
import sys
from collections import defaultdict

FACTORS = {"all_reduce": lambda n: 2 * (n - 1) / n, "all_gather": lambda n: (n - 1) / n,
           "reduce_scatter": lambda n: (n - 1) / n, "alltoall": lambda n: (n - 1) / n,
           "gather": lambda n: (n - 1) / n, "scatter": lambda n: (n - 1) / n,
           "broadcast": lambda n: 1.0, "reduce": lambda n: 1.0, "send": lambda n: 1.0, "recv": lambda n: 1.0}
POINT_TO_POINT = ("send", "recv")
COUNT_PER_MEMBER = ("all_gather", "reduce_scatter", "alltoall", "gather", "scatter")


def bucket(nbytes):
    return 0 if nbytes == 0 else 1 << (nbytes.bit_length() - 1)


def expected_rows(listing, scale=None, counts="per-rank"):
    rank_calls, rank_bytes = defaultdict(int), defaultdict(int)
    lines = [line.split() for line in open(listing)]
    calls = [words for words in lines if words and words[0] == "call"]
    recorded = 1 + max(int(words[1]) for words in calls) if calls else 0
    replicas = scale // recorded if scale else 1
    for words in calls:
        collective, count, dtype, group, payload = words[2], int(words[3]), words[4], words[5], words[6]
        payload = 0 if collective == "barrier" else int(payload)
        group = 2 if collective in POINT_TO_POINT else int(group)
        copies = 1
        if scale and collective not in POINT_TO_POINT and group == recorded:
            # On the recorded world: the M ranks' world, each of them issuing it.
            copies = scale // recorded if scale % recorded == 0 else None
            if collective in COUNT_PER_MEMBER:
                element = payload // (count * group)
                if counts == "total":
                    count = -(-count * recorded // scale)
                payload = count * element * scale
            group = scale
        elif scale:
            copies = replicas
        if copies is None:
            sys.exit("--scale: only a multiple of the recorded ranks is worked out here")
        key = (collective, bucket(payload), dtype, group)
        rank_calls[key] += copies
        rank_bytes[key] += payload * copies
    rows = {}
    for key, calls in rank_calls.items():
        issuers = 1 if key[0] in POINT_TO_POINT else key[3]
        if calls % issuers:
            sys.exit(f"listing: {calls} rank calls of {key} do not divide among {issuers} members")
        rows[key] = (calls // issuers, rank_bytes[key] // issuers)
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("report")
    parser.add_argument("listing")
    parser.add_argument("--backend", required=True)
    parser.add_argument("--cycles", type=int, required=True)
    parser.add_argument("--ddp-expected")
    parser.add_argument("--scale", type=int)
    parser.add_argument("--scale-counts", default="per-rank")
    args = parser.parse_args()
    report = json.load(open(args.report))
    problems = []
    if report.get("benchmark") != "replay" or report.get("status") != "complete":
        problems.append(f"benchmark {report.get('benchmark')} status {report.get('status')}")
    expected = expected_rows(args.listing, args.scale, args.scale_counts)
    recorded_ranks = report["trace"]["world_size"] if not args.scale else report["trace"]["scale"]["recorded_world_size"]
    want_scale = f"{recorded_ranks}->{args.scale} {args.scale_counts}" if args.scale else "none"
    if args.scale and (report["trace"]["world_size"] != args.scale or report["context"]["options"].get("scale") != args.scale):
        problems.append(f"trace world_size {report['trace']['world_size']}, options.scale {report['context']['options'].get('scale')}: want {args.scale}")
    if not expected:
        problems.append("the listing holds no call")
    if args.ddp_expected:
        ddp = json.load(open(args.ddp_expected))
        from_torch = defaultdict(int)
        for size in ddp["rebuilt_bucket_sizes"]:
            from_torch[("all_reduce", bucket(size), "float32", 2)] += ddp["steps"]
        ours = {key: calls for key, (calls, _) in expected.items() if key[0] == "all_reduce"}
        if ours != dict(from_torch):
            problems.append(f"all_reduce rows {ours} are not DDP's own buckets {dict(from_torch)}")
    by_cycle = defaultdict(dict)
    sequences = defaultdict(list)
    for row in report["results"]:
        if row.get("kind") != "replay":
            problems.append(f"a row of kind {row.get('kind')}")
            continue
        if row["backend"] != args.backend:
            problems.append(f"a row on backend {row['backend']}")
        if row["time_us"]["mean"] <= 0:
            problems.append(f"a row without a time: {row}")
        if row.get("scale") != want_scale:
            problems.append(f"a row of scale {row.get('scale')!r}, want {want_scale!r}")
        if args.scale and (row.get("job_call_us") is not None or row.get("job_comm_us") is not None):
            problems.append(f"a scaled row beside the job's own times at its recorded scale: {row}")
        if row["collective"] == "sequence":
            sequences[row["cycle"]].append(row)
            continue
        key = (row["collective"], row["bytes"], row["dtype"], row["group_size"])
        if key in by_cycle[row["cycle"]]:
            problems.append(f"cycle {row['cycle']}: two rows for {key}")
        by_cycle[row["cycle"]][key] = row
        factor = FACTORS.get(row["collective"])
        if factor and row["group_size"] > 1:
            want = row["algbw_gbps"] * factor(row["group_size"])
            if row["busbw_gbps"] is None or abs(row["busbw_gbps"] - want) > 1e-9 * max(1.0, want):
                problems.append(f"{key}: busbw {row['busbw_gbps']} is not algbw x {factor(row['group_size'])}")
        # -c checks every collective and every receive (a send where it is received).
        checked = row["collective"] not in ("send", "barrier") and row.get("check_iterations", 0) > 0
        if checked and row.get("wrong") != 0:
            problems.append(f"{key}: wrong {row.get('wrong')}")
        if row["collective"] == "send" and row.get("wrong") is not None:
            problems.append(f"{key}: a send's row has a check count, its receive's has it")
    for cycle in range(1, args.cycles + 1):
        got = {key: (row["calls"], row["bytes_total"]) for key, row in by_cycle[cycle].items()}
        if got != expected:
            problems.append(f"cycle {cycle}: rows {sorted(got.items())} != the trace's {sorted(expected.items())}")
        if len(sequences[cycle]) != 1:
            problems.append(f"cycle {cycle}: {len(sequences[cycle])} sequence rows")
            continue
        sequence = sequences[cycle][0]
        calls = sum(c for c, _ in expected.values())
        nbytes = sum(b for _, b in expected.values())
        if sequence["calls"] != calls or sequence["bytes"] != nbytes:
            problems.append(f"cycle {cycle}: sequence row {sequence['calls']} calls {sequence['bytes']} B, the trace {calls} and {nbytes}")
    if set(by_cycle) - set(range(1, args.cycles + 1)):
        problems.append(f"rows of cycles {sorted(by_cycle)}")
    for problem in problems:
        print(f"FAIL {args.report}: {problem}")
    if problems:
        return 1
    print(f"ok: {len(expected)} bucket rows x {args.cycles} cycles and the sequence, as the trace's calls")
    return 0


if __name__ == "__main__":
    sys.exit(main())
