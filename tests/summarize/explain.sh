#!/usr/bin/env bash
# collbench explain on this machine, for real: an all_reduce and a sendrecv at 2 ranks under mpirun
# against the host's memory ceiling measured on the spot (membw_perf, one rank), then the ways it
# must refuse. Speed is never asserted: the verdict may be ok or low on a loaded machine, but it is
# made (not "cannot say"), against a quarter of the measured memory traffic, with the fit's ranges.
# usage: explain.sh BIN_DIR
set -uo pipefail
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
as_root=()
[ "$(id -u)" -eq 0 ] && as_root=(--allow-run-as-root)
cd "$work" && mkdir runs || exit 1

for collective in all_reduce sendrecv; do
  mpirun "${as_root[@]}" --oversubscribe -np 2 "$bin/${collective}_perf" -b 8 -e 4M -f 8 -n 3 -w 1 -c 0 -J "runs/$collective.json" </dev/null \
    > "$collective.out" 2>&1 || fail "${collective}_perf: $(tail -3 "$collective.out")"
done
"$bin/membw_perf" -b 64M -e 64M -k copy -n 3 -w 1 -J runs/ceilings.json > membw.out 2>&1 || fail "membw_perf: $(tail -3 membw.out)"

# The folder: collectives explained, the membw report taken as the ceiling.
"$bin/collbench" explain runs --json > explained.json 2> err || fail "explain: $(cat err)"
python3 - explained.json <<'PY' || fail "explain's JSON"
import json, sys
document = json.load(open(sys.argv[1]))
ceiling = document["memory_ceiling"]
assert ceiling and ceiling["traffic_gbps"] > 0 and "membw_perf copy" in ceiling["what"], ceiling
explanations = {e["benchmark"]: e for e in document["explanations"]}
assert set(explanations) == {"all_reduce", "sendrecv"}, explanations.keys()
for name, e in explanations.items():
    assert e["expected"]["path"] == "intra-host: host memory", (name, e["expected"])
    accesses = 5 if name == "all_reduce" else 4  # the sum's reads and write besides the two copies
    assert abs(e["expected"]["busbw_gbps"] - ceiling["traffic_gbps"] / accesses) < 1e-9 * ceiling["traffic_gbps"], (name, e["expected"])
    assert e["verdict"] in ("ok", "low"), (name, e["verdict"], e["expected"]["missing"])
    assert abs(e["fraction"] - e["busbw_gbps"] / e["expected"]["busbw_gbps"]) < 1e-9, (name, e)
    assert e["busbw_at_bytes"] in (256 * 1024, 2 * 1024 * 1024), (name, e["busbw_at_bytes"])
    assert e["ranges"] and e["ranges"][0]["from_bytes"] == 8, (name, e["ranges"], e["fit_note"])
    assert e["words"].startswith(name + " at 2 rank(s) on 1 host(s)"), e["words"]
PY

# The summary of the same, with the ceiling given: a fraction beside the peak.
"$bin/collbench" table --summary yes runs/all_reduce.json runs/sendrecv.json --ceilings runs/ceilings.json --format csv > summary.csv 2> err ||
  fail "table --summary: $(cat err)"
head -1 summary.csv | grep -q 'max_busbw_gbps,of_expected' || fail "no of_expected column: $(head -1 summary.csv)"
[ "$(grep -c ' %' summary.csv)" -eq 2 ] || fail "not a fraction a report: $(cat summary.csv)"

# Without a ceiling: cannot say, and what is missing; exit 0.
"$bin/collbench" explain runs/all_reduce.json > plain.txt 2> err || fail "explain without a ceiling: $(cat err)"
grep -q "cannot say over intra-host: host memory: no memory ceiling" plain.txt || fail "no 'cannot say': $(cat plain.txt)"

# Refusals: one line on stderr, exit 2, no explanation printed.
refused() {  # DESCRIPTION EXPECTED_TEXT COMMAND...
  local what=$1 text=$2
  shift 2
  "$@" > out 2> err
  local code=$?
  [ "$code" -eq 2 ] || fail "$what: exit $code, not 2"
  [ "$(wc -l < err)" -eq 1 ] || fail "$what: not one line on stderr: $(cat err)"
  grep -q -- "$text" err || fail "$what: '$text' not in: $(cat err)"
  [ ! -s out ] || fail "$what: printed an explanation: $(cat out)"
}
printf 'link nic-25g | 25 | - | our datasheet | per NIC\n' > no-unit.peaks
refused "a rate without a unit" "no-unit.peaks, line 1: line rate '25' is not a number with a unit" \
  "$bin/collbench" explain runs/all_reduce.json --expect no-unit.peaks
printf '# ours\nlink intra-host | -3 GB/s | - | x | y\n' > negative.peaks
refused "a negative rate" "negative.peaks, line 2: line rate '-3 GB/s' is not above zero" "$bin/collbench" explain runs/all_reduce.json --expect negative.peaks
printf 'link intra-host | 3 GB/s | 9e9 GB/s | x | y\n' > absurd.peaks
refused "an absurd rate" "above 100 TB/s" "$bin/collbench" table --summary yes runs/all_reduce.json --expect absurd.peaks
refused "a missing --expect file" "missing.peaks" "$bin/collbench" explain runs/all_reduce.json --expect missing.peaks
refused "a collective report as the ceiling" "not a membw_perf, copy_perf or envcheck report" \
  "$bin/collbench" explain runs/all_reduce.json --ceilings runs/sendrecv.json
refused "only a ceiling" "no collective report among the inputs" "$bin/collbench" explain runs/ceilings.json

# An --expect entry replaces the inventory's: the verdict is against it, and says it is a line rate.
printf 'link intra-host | 1000 GB/s | - | a figure no host memory reaches | test\n' > high.peaks
"$bin/collbench" explain runs/all_reduce.json --expect high.peaks --format json > high.json 2> err || fail "explain --expect: $(cat err)"
python3 -c '
import json, sys
e = json.load(open(sys.argv[1]))["explanations"][0]
assert e["expected"]["path"] == "intra-host" and e["expected"]["line_rate_only"] and e["verdict"] == "low", e
' high.json || fail "an intra-host entry from --expect"
echo "explain: ok"
