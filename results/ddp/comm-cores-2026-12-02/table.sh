#!/usr/bin/env bash
# The table of measure.sh's reports: per side, bucket cap and overlap, the median over repetitions
# (and the range) of the row's step, compute alone, exposed communication and compute slowdown.
#   results/ddp/comm-cores-2026-12-02/table.sh OUT_DIR
set -u
out="$1"
echo "| side | bucket MiB | overlap | reps | step ms | compute alone ms | exposed ms | compute slowdown | BLAS threads | compute thread's allowed CPUs (rank 0) |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for side in shared reserved; do
  cat "$out/runs/$side"-*.json | jq -rs --arg side "$side" '
    def med: sort | if length == 0 then null else .[(length - 1) / 2 | floor] end;
    def fmt(f): (map(f) | sort) as $v | "\($v | med | . * 100 | round / 100) [\($v[0] | . * 100 | round / 100)-\($v[-1] | . * 100 | round / 100)]";
    [.[] | .results[] | select(.kind == "ddp_step")] | group_by([.bucket_mb, .overlap]) | .[] |
    "| \($side) | \(.[0].bucket_mb) | \(.[0].overlap) | \(length) | \(fmt(.time_us.mean / 1000)) | \(fmt(.compute_alone_us / 1000)) | \(fmt(.exposed_us / 1000)) | \(fmt(.compute_slowdown // 0)) | \(.[0].threads) | \(.[0].per_rank[0].threads[] | select(.role | startswith("compute")) | .allowed_cpus) |"'
done
