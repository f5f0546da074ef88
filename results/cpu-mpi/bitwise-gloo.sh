#!/usr/bin/env bash
# The bitwise table over Gloo's all_reduce algorithms (results/cpu-mpi/bitwise.md, second part):
# float32 sum, 3 and 4 ranks (bcube: 4 only, it needs a power of 2), 4 B to 4 MiB, -B 5.
# usage: results/cpu-mpi/bitwise-gloo.sh [BUILD_DIR] [OUT]
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$here/../.."
bin="${1:-$root/build}/bin"
out="${2:-$(mktemp -d)}"
mkdir -p "$out"
for np in 3 4; do
  for algorithm in default ring ring_chunked halving_doubling bcube; do
    [ "$np" -eq 3 ] && [ "$algorithm" = bcube ] && continue
    "$root/scripts/mpirun-local.sh" -np "$np" "$bin/all_reduce_perf" --backend gloo --algo "$algorithm" \
      -b 4 -e 4M -f 4 -d float32 -o sum -n 1 -w 0 -c 1 -B 5 -J "$out/np$np-$algorithm.json" --overwrite \
      >"$out/np$np-$algorithm.out" 2>&1
    echo "np $np $algorithm: exit $?" >&2
  done
done
python3 - "$out" <<'PY'
import json, sys, os
out = sys.argv[1]
print("| ranks | --algo | rows | rows differing across repeats | rows differing across ranks | #wrong | differing elements, largest row (over ranks) | first difference, 4 MiB out of place |")
print("|---|---|---|---|---|---|---|---|")
for np in (3, 4):
    for algorithm in ("default", "ring", "ring_chunked", "halving_doubling", "bcube"):
        path = os.path.join(out, f"np{np}-{algorithm}.json")
        if not os.path.exists(path):
            continue
        rows = json.load(open(path))["results"]
        kinds = {"repeats": 0, "ranks": 0}
        for r in rows:
            for d in r.get("first_bitdiff", []):
                kinds[d["between"]] += 1
        largest = max(rows, key=lambda r: (r["bytes"], r["placement"] == "out"))
        first = "-"
        if largest.get("first_bitdiff"):
            d = largest["first_bitdiff"][0]
            first = f'{d["between"]}: rank {d["rank"]} vs {d["reference_rank"]}, element {d["element"]}, {d["reference_bits"]} vs {d["bits"]}'
        wrong = sum(r["wrong"] or 0 for r in rows)
        print(f'| {np} | {algorithm} | {len(rows)} | {kinds["repeats"]} | {kinds["ranks"]} | {wrong} | {largest["bitdiff"]} of {largest["count"]} | {first} |')
PY
