#!/usr/bin/env python3
"""Checks a replay_perf report against the trace it replayed (issue 61).

usage: check_replay_report.py REPORT LISTING --backend NAME --cycles N [--ddp-expected FILE]

LISTING is `replay_read_trace --calls` of the same files: one line per call and rank
("call RANK COLLECTIVE COUNT DTYPE GROUP_SIZE PAYLOAD_BYTES PEER", then the trace's times). From it the rows are worked out
here, independently of replay_perf's own bucketing: per (collective, size bucket [2^k, 2^(k+1))
bytes, dtype, group size; a send's or receive's group is its pair) the calls per pass (a
collective once for its group, a send or receive once for its rank) and their bytes. Every cycle
must have exactly these rows, and one sequence row with all of them; checked rows must have no
wrong elements; the bus bandwidth must follow nccl-tests' factor. --ddp-expected adds DDP's own
bucket sizes (ddp.expected.json, recorded from torch): one float32 all_reduce per bucket and step.
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


def bucket(nbytes):
    return 0 if nbytes == 0 else 1 << (nbytes.bit_length() - 1)


def expected_rows(listing):
    rank_calls, rank_bytes = defaultdict(int), defaultdict(int)
    for line in open(listing):
        words = line.split()
        if not words or words[0] != "call":
            continue
        collective, dtype, group, payload = words[2], words[4], words[5], words[6]
        payload = 0 if collective == "barrier" else int(payload)
        group = 2 if collective in POINT_TO_POINT else int(group)
        key = (collective, bucket(payload), dtype, group)
        rank_calls[key] += 1
        rank_bytes[key] += payload
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
    args = parser.parse_args()
    report = json.load(open(args.report))
    problems = []
    if report.get("benchmark") != "replay" or report.get("status") != "complete":
        problems.append(f"benchmark {report.get('benchmark')} status {report.get('status')}")
    expected = expected_rows(args.listing)
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
        if row["collective"] not in POINT_TO_POINT + ("barrier",) and row.get("check_iterations", 0) > 0 and row.get("wrong") != 0:
            problems.append(f"{key}: wrong {row.get('wrong')}")
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
