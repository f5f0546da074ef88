#!/usr/bin/env bash
# Proves `collbench model` on the simulated cluster (issue 25, "Prove it"): measures the fit's
# inputs and the runs it must predict on a star of four hosts (scripts/cluster/lib.sh), then
# compares (scripts/validate/model_compare.py). On demand, as root; about 20 to 30 minutes.
#
#   fit inputs:  2 ranks on one host (the intra-host link), 2 ranks on 2 hosts and 4 ranks on 4
#                hosts (one per host), over the shaped link at --fit-delay-ms;
#   predicted:   8 ranks, 2 per host on 4 hosts, at --fit-delay-ms and at --new-delay-ms (a link
#                the fit never saw); the same 8 ranks over the plain link (to show where the
#                shaped link, not the 2 cores, dominates);
#   collectives: all_reduce ring (Open MPI tuned 4) and recursive doubling (3), broadcast binomial
#                tree (6; timed as the mean over ranks and, again, as the slowest rank), alltoall
#                pairwise (2), forced through OMPI_MCA_coll_tuned_*, sizes 8 B to 4 MiB;
#                ddp_step_perf (ring all-reduce) at 2 and 8 ranks, 3 bucket caps.
# Every run is repeated --reps times, interleaved (rep 1 of everything, then rep 2, ...), with
# `uptime` before each in DIR/load.txt. Reports: DIR/runs/<link>/<config>/<benchmark>-r<rep>.json.
#
# usage: scripts/validate/model_on_cluster.sh [--out DIR] [--bin-dir DIR] [--rate 100mbit]
#          [--fit-delay-ms 5] [--new-delay-ms 10] [--reps 3] [--iters 5] [--sizes 8,64,...,4M]
#          [--eager-limit BYTES] [--only-measure|--only-compare]
# --eager-limit sets Open MPI's TCP eager limit and send size (btl_tcp_eager_limit,
# btl_tcp_max_send_size; default 64 KiB and 128 KiB), so that messages up to it need no rendezvous.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# shellcheck source=scripts/cluster/lib.sh
. "$root/scripts/cluster/lib.sh"

out="" bin_dir="$root/build/bin" rate=100mbit fit_delay=5 new_delay=10 reps=3 iters=5 measure=1 compare=1
sizes=8,64,512,4K,32K,128K,512K,1M,2M,4M eager_limit=""
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --bin-dir) bin_dir=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --fit-delay-ms) fit_delay=$2; shift 2 ;;
    --new-delay-ms) new_delay=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --iters) iters=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --eager-limit) eager_limit=$2; shift 2 ;;
    --only-measure) compare=0; shift ;;
    --only-compare) measure=0; shift ;;
    *) echo "model_on_cluster.sh: unknown argument $1 (see the usage at the top of $0)" >&2; exit 2 ;;
  esac
done
out=${out:-"$root/results/local/model-validate-$(date +%Y%m%d-%H%M%S)"}
mkdir -p "$out"
bin_dir="$(cd "$bin_dir" && pwd)"
buckets=0.5,1,4

# name | environment forcing the algorithm | program | extra flags
# broadcast twice: the time of a rooted collective averaged over ranks (-a 1, the default) counts
# ranks that leave the barrier late and find their data waiting; -a 3 times the slowest rank.
benchmarks=(
  "all_reduce-ring|OMPI_MCA_coll_tuned_allreduce_algorithm=4|all_reduce_perf|"
  "all_reduce-recursive_doubling|OMPI_MCA_coll_tuned_allreduce_algorithm=3|all_reduce_perf|"
  "broadcast-binomial|OMPI_MCA_coll_tuned_bcast_algorithm=6|broadcast_perf|"
  "alltoall-pairwise|OMPI_MCA_coll_tuned_alltoall_algorithm=2|alltoall_perf|"
  "broadcast-binomial-max|OMPI_MCA_coll_tuned_bcast_algorithm=6|broadcast_perf|-a 3"
)
# config name | ranks | ranks per host; which links each runs on is decided below.
fit_configs=("np2-1host|2|2" "np2-2hosts|2|1" "np4-4hosts|4|1")
predict_config="np8-4hosts|8|2"

run_timeout=900
work=$(mktemp -d)
MPIRUN_PID=""
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  if [ -n "$MPIRUN_PID" ]; then
    kill -TERM "$MPIRUN_PID" 2>/dev/null || true
    timeout 10 tail --pid="$MPIRUN_PID" -f /dev/null 2>/dev/null || true
  fi
  star_down
  rm -rf "$work"
  exit "$status"
}

# run_one LINK_NAME LINK CONFIG BENCHMARK_SPEC REP: one report, its load line first.
run_one() {
  local link_name=$1 link=$2 config=$3 spec=$4 rep=$5
  local cname np per_host name env program extra
  IFS='|' read -r cname np per_host <<<"$config"
  IFS='|' read -r name env program extra <<<"$spec"
  local dir="$out/runs/$link_name/$cname"
  mkdir -p "$dir"
  local report="$dir/$name-r$rep.json" logfile="$dir/$name-r$rep.log"
  [ -s "$report" ] && return 0  # a rerun after an interruption keeps what was measured
  local flags=(--sizes "$sizes" -n "$iters" -w 1 -c 0 --placement out)
  # shellcheck disable=SC2206  # extra is a list of words
  [ -n "$extra" ] && flags+=($extra)
  if [ "$program" = ddp_step_perf ]; then
    flags=(--model "$here/ddp_model.csv" --bucket-mb "$buckets" -n "$iters" -w 1 -c 0)
  fi
  echo "$(date -u +%FT%TZ) $link_name/$cname/$name r$rep: $(uptime)" >>"$out/load.txt"
  log "$link_name $cname $name r$rep"
  local status=0 mca=()
  if [ -n "$eager_limit" ]; then mca=(-x OMPI_MCA_btl_tcp_eager_limit -x OMPI_MCA_btl_tcp_max_send_size); fi
  (
    export OMPI_MCA_coll_tuned_use_dynamic_rules=1 "${env?}"
    if [ -n "$eager_limit" ]; then export OMPI_MCA_btl_tcp_eager_limit="$eager_limit" OMPI_MCA_btl_tcp_max_send_size="$eager_limit"; fi
    # shellcheck disable=SC2016  # expanded by the inner bash
    timeout -k 10 "$run_timeout" bash -c '. "$1/lib.sh"; star_names 4; shift; star_mpirun "$@"' validate "$root/scripts/cluster" \
      "$np" "$per_host" "$link" "$work" -- -x OMPI_MCA_coll_tuned_use_dynamic_rules -x "${env%%=*}" "${mca[@]}" \
      "$bin_dir/$program" "${flags[@]}" -T 120 --tag link="$link_name" --tag rep="$rep" --tag config="$cname" -J "$report.tmp"
  ) >"$logfile" 2>&1 &
  MPIRUN_PID=$!
  wait "$MPIRUN_PID" || status=$?
  MPIRUN_PID=
  if [ "$status" -ne 0 ]; then
    log "FAILED ($status): $link_name $cname $name r$rep; output in $logfile"
    tail -5 "$logfile" >&2
    rm -f "$report.tmp"
    return 1
  fi
  mv "$report.tmp" "$report"
}

if [ "$measure" -eq 1 ]; then
  [ "$(id -u)" -eq 0 ] || { echo "model_on_cluster.sh: needs root (network namespaces)" >&2; exit 2; }
  trap cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  MTU=9000
  star_up 4
  star_names 4
  {
    echo "# machine"
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); cores: $(nproc)"
    echo "kernel: $(uname -r); $(mpirun --version 2>&1 | head -1)"
    echo "collbench: $("$bin_dir/all_reduce_perf" --version 2>&1 | head -1)"
    echo "rate $rate per host and direction; fit delay $fit_delay ms, new delay $new_delay ms host to host; reps $reps; iters $iters"
    echo "Open MPI TCP eager limit and send size: ${eager_limit:-default (65536 and 131072)}"
  } >"$out/machine.txt"
  ddp="ddp-ring|OMPI_MCA_coll_tuned_allreduce_algorithm=4|ddp_step_perf|"
  for ((rep = 1; rep <= reps; rep++)); do
    mkdir -p "$out/forwarders/delay${fit_delay}ms-r$rep" "$out/forwarders/delay${new_delay}ms-r$rep"
    star_shape "$rate" "$fit_delay" 0 "$bin_dir/tun_forwarder" "$out/forwarders/delay${fit_delay}ms-r$rep"
    for config in "${fit_configs[@]}" "$predict_config"; do
      for spec in "${benchmarks[@]}"; do run_one "delay${fit_delay}ms" shaped "$config" "$spec" "$rep"; done
    done
    run_one "delay${fit_delay}ms" shaped "np2-2hosts|2|1" "$ddp" "$rep"
    run_one "delay${fit_delay}ms" shaped "$predict_config" "$ddp" "$rep"
    star_link_stats >"$out/link-stats-delay${fit_delay}ms-r$rep.txt"
    star_shape "$rate" "$new_delay" 0 "$bin_dir/tun_forwarder" "$out/forwarders/delay${new_delay}ms-r$rep"
    for spec in "${benchmarks[@]}"; do run_one "delay${new_delay}ms" shaped "$predict_config" "$spec" "$rep"; done
    star_link_stats >"$out/link-stats-delay${new_delay}ms-r$rep.txt"
    for spec in "${benchmarks[@]}"; do run_one plain plain "$predict_config" "$spec" "$rep"; done
  done
  star_unshape
fi

if [ "$compare" -eq 1 ]; then
  # From inside DIR, so the models and tables name the reports by relative paths.
  (cd "$out" && python3 "$here/model_compare.py" --runs runs --collbench "$bin_dir/collbench" --out . \
    --fit-delay-ms "$fit_delay" --new-delay-ms "$new_delay" --buckets "$buckets")
fi
