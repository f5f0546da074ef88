#!/usr/bin/env bash
# How much a run's figure moves between two runs of the same program, for several loop settings:
# A/A pairs of all_reduce_perf (ci-perf's sizes, 2 ranks), the settings taken in turn within each
# pair round and A/B order alternating, then per row and setting the spread of the pairs' log
# ratio B/A (standard deviation and 1.4826 x MAD) for the run figures min, p10 (of the cycles'
# p10 times, as compare combines cycles) and p50. Usage:
#   results/summarize/suite_spread.sh BIN_DIR WORK PAIRS "SETTINGS" ["SETTINGS" ...]
#   e.g. ... build/bin W 20 "-n 40 --samples" "-n 500 -N 8" "-n 2000 -N 8"
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="$1"; work="$2"; pairs="$3"; shift 3
mkdir -p "$work"
for i in $(seq 1 "$pairs"); do
  for index in $(seq 1 $#); do
    for side in A B; do
      label=$side
      [ $((i % 2)) = 0 ] && { [ "$side" = A ] && label=B || label=A; }
      # shellcheck disable=SC2086  # a setting is several flags
      "$here/../../scripts/mpirun-local.sh" -np 2 "$bin/all_reduce_perf" --sizes 64K,256K -w 5 -c 1 -T 120 ${!index} \
        -J "$work/s$index-$label-$i.json" --overwrite > /dev/null 2>&1
    done
  done
done
python3 - "$work" "$@" <<'PY'
import glob, json, math, statistics as st, sys
work, settings = sys.argv[1], sys.argv[2:]
def quantile(values, q):
    values = sorted(values); k = q * (len(values) - 1); lo = int(k); hi = min(lo + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)
def figures(path, q):
    per_cycle = {}
    for row in json.load(open(path))["results"]:
        per_cycle.setdefault((row["placement"], row["bytes"]), []).append(row["time_us"]["min" if q == 0 else "p10" if q == 0.1 else "p50"])
    return {key: quantile(values, q) for key, values in per_cycle.items()}
print("| figure | settings | pairs | " + " | ".join(f"{p} {b // 1024} KiB sd / MAD" for p, b in [("in", 65536), ("in", 262144), ("out", 65536), ("out", 262144)]) + " |")
print("|---|---|---|---|---|---|---|")
for name, q in [("min", 0), ("p10", 0.1), ("p50", 0.5)]:
    for index, setting in enumerate(settings, 1):
        ratios = {}
        for a in glob.glob(f"{work}/s{index}-A-*.json"):
            try: fa, fb = figures(a, q), figures(a.replace("-A-", "-B-"), q)
            except (OSError, ValueError, KeyError): continue
            for key in fa: ratios.setdefault(key, []).append(math.log(fb[key] / fa[key]))
        cells = []
        for key in sorted(ratios):
            r = ratios[key]; m = st.median(r)
            cells.append(f"{100 * st.pstdev(r):.1f} / {100 * 1.4826 * st.median([abs(x - m) for x in r]):.1f} %")
        count = len(next(iter(ratios.values()))) if ratios else 0
        print(f"| {name} | `{setting}` | {count} | " + " | ".join(cells) + " |")
PY
