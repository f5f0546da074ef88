#!/usr/bin/env bash
# A real all_reduce_perf run (2 ranks under mpirun) with an NVML stand-in named through the test
# hook COLLBENCH_NVML_LIBRARY records that machine's GPUs and links in context.machine.gpu_inventory;
# collbench explain then picks the expected-peak entry from them once the ranks' devices are that
# GPU (the run itself is on the CPU: no GPU here). No NVML, and a host without a driver, record why
# and fall back to the model's name with a note.
# usage: nvml_inventory.sh BIN_DIR FAKE_SXM FAKE_PCIE FAKE_NODRIVER
set -uo pipefail
bin=$1 sxm=$2 pcie=$3 nodriver=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
as_root=()
[ "$(id -u)" -eq 0 ] && as_root=(--allow-run-as-root)
cd "$work" || exit 1

# run NAME LIBRARY: the run's report NAME.json, and NAME-gpu.json, the same run as if its ranks had
# been on GPU 0 and 1 of MODEL (NCCL), for explain's GPU path.
run() {
  local name=$1 library=$2 model=$3
  COLLBENCH_NVML_LIBRARY=$library mpirun "${as_root[@]}" --oversubscribe -x COLLBENCH_NVML_LIBRARY -np 2 "$bin/all_reduce_perf" \
    -b 1M -e 4M -f 2 -n 3 -w 1 -c 0 -J "$name.json" </dev/null > "$name.out" 2>&1 || fail "$name run: $(tail -3 "$name.out")"
  python3 - "$name.json" "$model" "$name-gpu.json" <<'PY' || fail "$name: cannot make the GPU copy"
import json, sys
report = json.load(open(sys.argv[1]))
model = sys.argv[2]
for rank in report["context"]["ranks"]:
    rank["device"] = "%s [%d]" % (model, rank["local_rank"])
report["context"]["machine"]["gpus"] = [{"model": model}]
report["context"]["backend"] = "nccl"
json.dump(report, open(sys.argv[3], "w"))
PY
  "$bin/collbench" explain --json "$name-gpu.json" > "$name-explained.json" 2> err || fail "$name explain: $(cat err)"
}
# check NAME PYTHON: asserts over `inventory` (the report's) and `e` (explain's one explanation).
check() {
  python3 - "$1.json" "$1-explained.json" "$2" <<'PY' || fail "$1: $(cat "$1-explained.json" | head -c 3000)"
import json, sys
report = json.load(open(sys.argv[1]))
assert report["schema_version"] == "2.10", report["schema_version"]
inventory = report["context"]["machine"]["gpu_inventory"]
e = json.load(open(sys.argv[2]))["explanations"][0]
x = e["expected"]
exec(sys.argv[3])
PY
}

run sxm "$sxm" "NVIDIA H200"
check sxm '
assert inventory["source"] == "nvml" and inventory["read"] is True and inventory["note"] == "", inventory
assert inventory["library"].endswith("libcollbench_fake_nvml_sxm.so"), inventory["library"]
assert len(inventory["gpus"]) == 8, inventory
for index, gpu in enumerate(inventory["gpus"]):
    assert gpu["index"] == index and gpu["name"] == "NVIDIA H200" and gpu["compute_capability"] == "9.0", gpu
    assert gpu["nvlink"] == {"links": 18, "active": 18, "to_nvswitch": 18, "version_code": 6, "version": "NVLink 4.0"}, gpu
    assert gpu["nvswitch"] is True, gpu
    assert gpu["pcie"] == {"generation": 5, "max_generation": 5, "width": 16, "max_width": 16}, gpu
assert x["path"] == "intra-host: nvlink4" and x["picked_by"] == "nvml" and x["pick_note"] == "", x
assert x["busbw_gbps"] == 370 and "18 of 18 NVLinks up" in x["inventory"] and x["inventory"].startswith("8x NVIDIA H200 (9.0)"), x
assert "by NVML: 8x NVIDIA H200" in x["basis"] and "nvlink4" in x["basis"], x["basis"]
assert e["gpu_inventory"].startswith("NVML: 8x NVIDIA H200 (9.0): 18 of 18 NVLinks up"), e["gpu_inventory"]
assert not [r for r in e["reasons"] if r["code"] in ("nvlink_down", "pcie_narrow")], e["reasons"]
'

# The PCIe-only layout: the model's name has no entry ("H100 PCIe"), the links give one: PCIe gen 5,
# at the narrower GPU's x8 of 16.
run pcie "$pcie" "NVIDIA H100 PCIe"
check pcie '
assert inventory["read"] is True and len(inventory["gpus"]) == 2, inventory
assert all(g["nvlink"]["links"] == 0 and g["nvlink"]["version"] is None and g["nvswitch"] is False for g in inventory["gpus"]), inventory
assert [g["pcie"]["width"] for g in inventory["gpus"]] == [16, 8], inventory
assert x["path"] == "intra-host: pcie5-x16" and x["picked_by"] == "nvml" and x["line_rate_only"] is True, x
assert abs(x["busbw_gbps"] - 63 / 2) < 1e-9, x  # PCIe 5.0 x16: 63 GB/s a direction
assert [r["code"] for r in e["reasons"]].count("pcie_narrow") == 1, e["reasons"]
assert e["verdict"] in ("ok", "low"), e
'

# No NVML library: recorded as not read, with the loader's reason; the name picks, and says so.
run absent /nonexistent/libnvidia-ml.so.1 "NVIDIA H200"
check absent '
assert inventory["read"] is False and inventory["gpus"] == [], inventory
assert inventory["note"].startswith("cannot load /nonexistent/libnvidia-ml.so.1"), inventory
assert x["path"] == "intra-host: nvlink4" and x["picked_by"] == "name", x
assert x["pick_note"].startswith("picked by the GPU" + chr(39) + "s name, not its links: NVML was not read on the run" + chr(39) + "s host (cannot load"), x["pick_note"]
assert e["gpu_inventory"].startswith("NVML not read: cannot load"), e["gpu_inventory"]
assert "picked by the GPU" in e["words"], e["words"]
'
run nodriver "$nodriver" "NVIDIA H100 PCIe"
check nodriver '
assert inventory["read"] is False and inventory["note"] == "nvmlInit_v2: Driver Not Loaded (9)", inventory
assert x["picked_by"] == "name" and e["verdict"] == "cannot say" and "no entry for the GPU" in x["missing"], x
assert "Driver Not Loaded" in x["pick_note"], x
'

# The text form says the inventory beside the entry.
"$bin/collbench" explain sxm-gpu.json > sxm.txt 2> err || fail "explain text: $(cat err)"
grep -q "over intra-host: nvlink4: .*Expected: within the host, by NVML: 8x NVIDIA H200 (9.0): 18 of 18 NVLinks up" sxm.txt || fail "the text lacks the NVML pick: $(cat sxm.txt)"
echo "ok: NVML's inventory recorded (SXM, PCIe, absent, no driver) and explain's entries picked from it"
