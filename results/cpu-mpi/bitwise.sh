#!/usr/bin/env bash
# The bitwise table over Open MPI's all_reduce algorithms (results/cpu-mpi/bitwise.md): every
# forced tuned algorithm (1..6) and the default choice (0), float32 sum, 3 and 4 ranks, 4 B to
# 4 MiB, -B 5. Reports go to OUT (default: a fresh temporary folder); the table to stdout.
# usage: results/cpu-mpi/bitwise.sh [BUILD_DIR] [OUT]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$here/../.."
bin="${1:-$root/build}/bin"
out="${2:-$(mktemp -d)}"
mkdir -p "$out"
for np in 3 4; do
  for algorithm in 0 1 2 3 4 5 6; do
    OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_tuned_allreduce_algorithm=$algorithm \
      "$root/scripts/mpirun-local.sh" -np "$np" -x OMPI_MCA_coll_tuned_use_dynamic_rules -x OMPI_MCA_coll_tuned_allreduce_algorithm \
      "$bin/all_reduce_perf" -b 4 -e 4M -f 4 -d float32 -o sum -n 1 -w 0 -c 1 -B 5 \
      -J "$out/np$np-alg$algorithm.json" --overwrite >"$out/np$np-alg$algorithm.out" 2>&1 || echo "np $np algorithm $algorithm: exit $?" >&2
  done
done
python3 - "$out" <<'PY'
import json, sys, os
out = sys.argv[1]
print("| ranks | algorithm (row label) | rows | differ across repeats | differ across ranks | distinct output hashes vs algorithm 1 |")
print("|---|---|---|---|---|---|")
for np in (3, 4):
    base = {}
    for algorithm in range(7):
        path = os.path.join(out, f"np{np}-alg{algorithm}.json")
        rows = json.load(open(path))["results"]
        label = rows[0]["algorithm"]
        kinds = {"repeats": 0, "ranks": 0}
        for r in rows:
            for d in r.get("first_bitdiff", []):
                kinds[d["between"]] += 1
        hashes = {(r["bytes"], r["placement"]): r["bitwise_hash"] for r in rows}
        if algorithm == 1:
            base = hashes
        if algorithm == 0:
            other = "-"
        else:
            differing = sorted({b for (b, p), h in hashes.items() if base.get((b, p)) != h})
            other = "same bits" if not differing else f"{len(differing)} of {len({b for b, _ in hashes})} sizes differ (smallest {differing[0]} B)"
        print(f"| {np} | {algorithm} ({label}) | {len(rows)} | {kinds['repeats']} | {kinds['ranks']} | {other} |")
PY
# Which algorithms give the same bits as each other, per size (out of place; in place was the same
# in every run recorded), and which of them the default choice (0) matched.
python3 - "$out" <<'PY'
import json, sys, os
out = sys.argv[1]
print()
print("| ranks | size (B) | algorithms with identical bits | default (0) matched |")
print("|---|---|---|---|")
for np in (3, 4):
    hashes = {a: {(r["bytes"], r["placement"]): r["bitwise_hash"]
                  for r in json.load(open(os.path.join(out, f"np{np}-alg{a}.json")))["results"]} for a in range(7)}
    for (size, placement), default in sorted(hashes[0].items()):
        if placement != "out":
            continue
        classes = {}
        for a in range(1, 7):
            classes.setdefault(hashes[a][(size, placement)], []).append(a)
        text = " ".join("{" + ",".join(map(str, c)) + "}" for c in sorted(classes.values()))
        matched = ",".join(str(a) for a in range(1, 7) if hashes[a][(size, placement)] == default) or "none"
        print(f"| {np} | {size} | {text} | {matched} |")
PY
