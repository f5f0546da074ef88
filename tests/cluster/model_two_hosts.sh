#!/usr/bin/env bash
# CTest cluster.model_two_hosts: a smoke run of `collbench model` on measured cluster reports. The
# star cluster of scripts/cluster/lib.sh with two hosts and a shaped link (1 ms, 1gbit); ring
# all_reduce at 2 ranks (one per host) and 4 ranks (two per host), a few sizes; then model fit
# from both, predict 8 ranks at 4 per host and at a slower link, and ddp from a ddp_step_perf run;
# collbench explain on the 2-rank report against the shaped rate.
# Checks that every command succeeds and the fit names two levels; speed and error are not
# asserted (the validation with figures is scripts/validate/model_on_cluster.sh, on demand).
# Exit 77 (skipped) where the machine cannot host the simulation.
# usage: model_two_hosts.sh SOURCE_DIR BIN_DIR
set -uo pipefail
source_dir=$1 bin_dir=$2
# shellcheck source=require_cluster.sh
source "$(dirname "${BASH_SOURCE[0]}")/require_cluster.sh"

export CB_CLUSTER_PREFIX="cbm$$"  # own namespace names: a person's cluster is left alone
# shellcheck disable=SC2034  # read by lib.sh
MTU=9000
work=$(mktemp -d)
trap 'star_down >/dev/null 2>&1; rm -rf "$work"' EXIT
{ star_up 2 && star_shape 1gbit 1 0 "$bin_dir/tun_forwarder" "$work"; } 2>"$work/up.log" ||
  { echo "FAIL: the cluster did not come up"; cat "$work/up.log"; exit 1; }

failed=0
export OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_tuned_allreduce_algorithm=4
# run_on NP PER_HOST NAME PROGRAM ARGS...: one report in $work/NAME.json
run_on() {
  local np=$1 per_host=$2 name=$3
  shift 3
  # shellcheck disable=SC2016  # expanded by the inner bash
  timeout -k 5 60 bash -c '. "$1/lib.sh"; star_names 2; shift; star_mpirun "$@"' smoke "$source_dir/scripts/cluster" \
    "$np" "$per_host" shaped "$work" -- -x OMPI_MCA_coll_tuned_use_dynamic_rules -x OMPI_MCA_coll_tuned_allreduce_algorithm \
    "$@" -T 30 -J "$work/$name.json" >"$work/$name.log" 2>&1 ||
    { echo "FAIL: $name exited $?"; tail -5 "$work/$name.log"; failed=1; }
}
sizes=(--sizes "8,4K,64K,256K" -n 3 -w 1 -c 1 --placement out)
run_on 2 1 np2 "$bin_dir/all_reduce_perf" "${sizes[@]}"
run_on 4 2 np4 "$bin_dir/all_reduce_perf" "${sizes[@]}"
run_on 2 1 ddp "$bin_dir/ddp_step_perf" --model "$source_dir/scripts/validate/ddp_model.csv" --bucket-mb 1,4 -n 2 -w 1 -c 1
[ "$failed" -eq 0 ] || exit 1
"$bin_dir/report_hosts" "$work/np4.json" --expect 2 || failed=1

collbench=$bin_dir/collbench
"$collbench" model fit "$work/np2.json" "$work/np4.json" --out "$work/model.json" >"$work/fit.txt" 2>&1 ||
  { echo "FAIL: model fit"; cat "$work/fit.txt"; exit 1; }
grep -q "ompi-tuned-4" "$work/fit.txt" || { echo "FAIL: the fit does not name the forced ring (ompi-tuned-4)"; failed=1; }
if ! grep -q "intra-host" "$work/fit.txt" || ! grep -q "inter-host" "$work/fit.txt"; then
  echo "FAIL: the fit does not give intra- and inter-host parameters"
  cat "$work/fit.txt"
  failed=1
fi
for extra in "" "--inter-latency 5ms --inter-bandwidth 0.1Gbit"; do
  # shellcheck disable=SC2086  # extra is a list of words
  "$collbench" model predict "$work/model.json" --np 8 --ranks-per-host 4 $extra --sizes 8,64K,1M >"$work/predict.txt" 2>&1 ||
    { echo "FAIL: model predict $extra"; cat "$work/predict.txt"; failed=1; }
done
"$collbench" model ddp "$work/model.json" "$work/ddp.json" --np 8 --ranks-per-host 4 --bucket-mb 1,4 >"$work/ddp.txt" 2>&1 ||
  { echo "FAIL: model ddp"; cat "$work/ddp.txt"; failed=1; }
grep -q "^note: best:" "$work/ddp.txt" || { echo "FAIL: model ddp names no best setting"; cat "$work/ddp.txt"; failed=1; }
# collbench explain across the two hosts, against the rate the link was shaped to (an --expect
# inter-host entry, as results/explain/cluster-* were): the inter-host path and that rate, and a
# verdict made (which one rests on timings: not asserted).
printf 'link inter-host | 1gbit | - | tc rate of the shaped link (star_shape 1gbit) | the link between the hosts\n' > "$work/shaped.peaks"
"$collbench" explain --json --expect "$work/shaped.peaks" "$work/np2.json" >"$work/explain.json" 2>"$work/explain.err" ||
  { echo "FAIL: explain"; cat "$work/explain.err"; failed=1; }
python3 - "$work/explain.json" <<'PY' || failed=1
import json, sys
e = json.load(open(sys.argv[1]))["explanations"][0]
x = e["expected"]
good = e["hosts"] == 2 and x["path"] == "inter-host" and x["busbw_gbps"] == 0.125 and x["line_rate_only"] and e["verdict"] in ("ok", "low")
print("ok: explain names the inter-host path at the shaped 1 Gbit/s" if good else "FAIL: explain across hosts: %s" % json.dumps(e)[:2000])
sys.exit(0 if good else 1)
PY
star_down >/dev/null 2>&1
for ns in "$CB_CLUSTER_PREFIX-host-a" "$CB_CLUSTER_PREFIX-host-b" "$CB_CLUSTER_PREFIX-switch"; do
  [ -e "/run/netns/$ns" ] && { echo "FAIL: namespace $ns left behind"; failed=1; }
done
[ "$failed" -eq 0 ] && echo "ok: model fit, predict and ddp on reports from two hosts ($(grep -c . "$work/predict.txt") lines predicted)"
exit "$failed"
