"""Checks a comm_init_perf report: usage: check_comm_init.py REPORT NP BACKEND METHOD[,METHOD] SIZES [SKIPS]
(SIZES: the communicator sizes every method must have rows for, comma-separated; SKIPS: the skipped
cases' "what", comma-separated, that the report must hold and no others)."""
import json
import sys

report_path, np, backend, methods, sizes = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4].split(","), sys.argv[5]
skips = set(sys.argv[6].split(",")) if len(sys.argv) > 6 and sys.argv[6] else set()
report = json.load(open(report_path))
assert report["benchmark"] == "comm_init" and report["status"] == "complete", (report["benchmark"], report["status"])
assert report["context"]["world_size"] == np and report["context"]["backend"] == backend, report["context"]["backend"]
startup = report["startup"]
assert startup["job_s"] > 0 and len(startup["per_rank_s"]) == np, startup
assert all(0 < s <= startup["job_s"] + 1e-6 for s in startup["per_rank_s"]), startup
rows = report["results"]
want = {(m, int(s)) for m in methods for s in sizes.split(",")}
got = {(r["method"], r["comm_size"]) for r in rows}
assert got == want, (sorted(got), sorted(want))
for r in rows:
    where = f'{r["method"]} at {r["comm_size"]}'
    t, v = r["time_us"], r["time_over_ranks_us"]
    assert r["kind"] == "comm_init" and r["backend"] == backend, where
    assert 0 < t["min"] <= t["mean"] <= t["max"], (where, t)
    assert t["min"] <= v["min"] <= v["mean"] <= v["max"] <= t["max"], (where, v, t)
    assert abs(r["rate_per_s"] - 1e6 / t["mean"]) <= 1e-9 * r["rate_per_s"], where
    assert r["wrong"] is None, where
assert report["summary"]["rows"] == len(rows), report["summary"]
skipped = {s["what"] for s in report.get("skipped", [])}
assert skipped == skips, (sorted(skipped), sorted(skips))
print(f"ok: {len(rows)} rows, start-up {startup['job_s']:.3f} s")
